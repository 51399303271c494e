-- Shop database schema: the current state of every table.
-- db/migrations/ records the steps that led here; apply them in order on an existing database.

CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    email           VARCHAR(254) NOT NULL UNIQUE,
    display_name    VARCHAR(80),
    password_hash   VARCHAR(128) NOT NULL,
    password_salt   VARCHAR(32) NOT NULL,
    failed_logins   INTEGER NOT NULL DEFAULT 0,
    locked          BOOLEAN NOT NULL DEFAULT FALSE
);

-- orders 订单表: one row per order placed by a customer; money in cents (金额单位为分).
CREATE TABLE orders (
    id               INTEGER PRIMARY KEY,
    customer_id      INTEGER NOT NULL REFERENCES users(id),
    status           VARCHAR(16) NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled')),
    currency         CHAR(3) NOT NULL DEFAULT 'CNY',
    total_cents      INTEGER NOT NULL DEFAULT 0,
    shipping_address TEXT,
    created_at       TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    cancelled_at     TIMESTAMP
);

CREATE INDEX idx_orders_customer ON orders(customer_id);
CREATE INDEX idx_orders_status ON orders(status);

-- order_items 订单明细表: the lines of an order, with the unit price at order time.
CREATE TABLE order_items (
    id               INTEGER PRIMARY KEY,
    order_id         INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    sku              VARCHAR(32) NOT NULL,
    quantity         INTEGER NOT NULL DEFAULT 1 CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0)
);

CREATE INDEX idx_order_items_order ON order_items(order_id);
