"""The ``orders`` table (订单表) and ``order_items`` table (订单明细表); see db/schema.sql."""

from __future__ import annotations

from app.models.base import Column, Model

ORDER_STATUSES = ("pending", "paid", "shipped", "cancelled")
CANCELLABLE_STATUSES = ("pending", "paid")


class Order(Model):
    """An order placed by a customer; each Column is one field of the orders table."""

    __tablename__ = "orders"

    id = Column("INTEGER", primary_key=True)
    customer_id = Column("INTEGER", nullable=False, foreign_key="users.id")
    status = Column("VARCHAR(16)", nullable=False, default="pending")
    currency = Column("CHAR(3)", nullable=False, default="CNY")
    total_cents = Column("INTEGER", nullable=False, default=0)
    shipping_address = Column("TEXT")
    created_at = Column("TIMESTAMP", nullable=False)
    cancelled_at = Column("TIMESTAMP")

    def is_cancellable(self) -> bool:
        return self.status in CANCELLABLE_STATUSES

    def mark_cancelled(self, when: str) -> None:
        if not self.is_cancellable():
            raise ValueError(f"order {self.id} is {self.status} and can no longer be cancelled")
        self.status = "cancelled"
        self.cancelled_at = when


class OrderItem(Model):
    """One line of an order: a product, how many, and the unit price at order time."""

    __tablename__ = "order_items"

    id = Column("INTEGER", primary_key=True)
    order_id = Column("INTEGER", nullable=False, foreign_key="orders.id")
    sku = Column("VARCHAR(32)", nullable=False)
    quantity = Column("INTEGER", nullable=False, default=1)
    unit_price_cents = Column("INTEGER", nullable=False)

    def subtotal_cents(self) -> int:
        return int(self.quantity) * int(self.unit_price_cents)
