-- 0002: orders get a lifecycle status.
-- pending -> paid -> shipped, or cancelled from pending or paid (see docs/req/订单需求说明.md).
-- Orders that existed before this migration were all paid.

ALTER TABLE orders ADD COLUMN status VARCHAR(16) NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled'));
ALTER TABLE orders ADD COLUMN cancelled_at TIMESTAMP;

UPDATE orders SET status = 'paid';

CREATE INDEX idx_orders_status ON orders(status);
