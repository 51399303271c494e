"""Request and response schemas of the /orders API (订单接口的请求体与响应体).

Each dataclass field is one JSON field; OrderOut mirrors the columns of the orders table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from app.models.order import Order, OrderItem

CURRENCIES = ("CNY", "USD", "EUR")


class ValidationError(ValueError):
    pass


@dataclass
class OrderItemIn:
    sku: str
    quantity: int
    unit_price_cents: int


@dataclass
class OrderCreate:
    """Body of ``POST /orders``."""

    customer_id: int
    items: list[OrderItemIn] = field(default_factory=list)
    currency: str = "CNY"
    shipping_address: str | None = None

    @classmethod
    def from_dict(cls, body: dict[str, Any]) -> OrderCreate:
        try:
            items = [OrderItemIn(**line) for line in body.get("items", [])]
            return cls(customer_id=int(body["customer_id"]), items=items,
                       currency=body.get("currency", "CNY"),
                       shipping_address=body.get("shipping_address"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(f"invalid order: {exc}") from None

    def validate(self) -> None:
        if not self.items:
            raise ValidationError("an order needs at least one item")
        if self.currency not in CURRENCIES:
            raise ValidationError(f"unsupported currency {self.currency}")
        for line in self.items:
            if line.quantity < 1:
                raise ValidationError(f"quantity of {line.sku} must be at least 1")
            if line.unit_price_cents < 0:
                raise ValidationError(f"price of {line.sku} cannot be negative")


@dataclass
class OrderItemOut:
    sku: str
    quantity: int
    unit_price_cents: int
    subtotal_cents: int


@dataclass
class OrderOut:
    """Body of every /orders response that returns one order."""

    id: int
    customer_id: int
    status: str
    currency: str
    total_cents: int
    created_at: str
    shipping_address: str | None = None
    cancelled_at: str | None = None
    items: list[OrderItemOut] = field(default_factory=list)

    @classmethod
    def from_model(cls, order: Order, items: list[OrderItem]) -> OrderOut:
        return cls(
            id=order.id, customer_id=order.customer_id, status=order.status,
            currency=order.currency, total_cents=order.total_cents,
            created_at=order.created_at, shipping_address=order.shipping_address,
            cancelled_at=order.cancelled_at,
            items=[OrderItemOut(i.sku, i.quantity, i.unit_price_cents, i.subtotal_cents())
                   for i in items],
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
