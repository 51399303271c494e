"""Order business rules: create an order, cancel it, compute its total."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from app.api.schemas import OrderCreate
from app.models.order import Order, OrderItem


class OrderNotFound(LookupError):
    pass


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class OrderService:
    """Keeps orders in memory; a real deployment would back this with the orders table."""

    def __init__(self, clock: Callable[[], str] = _utc_now) -> None:
        self._clock = clock
        self._orders: dict[int, Order] = {}
        self._items: dict[int, list[OrderItem]] = {}
        self._next_order_id = 1
        self._next_item_id = 1

    def create(self, request: OrderCreate) -> Order:
        """Validate the request, store the order and its items, and fill in the total."""
        request.validate()
        order = Order(
            id=self._next_order_id,
            customer_id=request.customer_id,
            currency=request.currency,
            shipping_address=request.shipping_address,
            created_at=self._clock(),
        )
        self._next_order_id += 1
        items = []
        for line in request.items:
            items.append(OrderItem(id=self._next_item_id, order_id=order.id, sku=line.sku,
                                   quantity=line.quantity,
                                   unit_price_cents=line.unit_price_cents))
            self._next_item_id += 1
        self._orders[order.id] = order
        self._items[order.id] = items
        order.total_cents = self.total(order.id)
        return order

    def get(self, order_id: int) -> Order:
        try:
            return self._orders[order_id]
        except KeyError:
            raise OrderNotFound(f"no order {order_id}") from None

    def items(self, order_id: int) -> list[OrderItem]:
        self.get(order_id)
        return list(self._items[order_id])

    def total(self, order_id: int) -> int:
        """The order total in cents: the sum of every item's subtotal."""
        return sum(item.subtotal_cents() for item in self.items(order_id))

    def cancel(self, order_id: int) -> Order:
        """Cancel a pending or paid order; a shipped order can no longer be cancelled."""
        order = self.get(order_id)
        order.mark_cancelled(self._clock())
        return order

    def list_for_customer(self, customer_id: int) -> list[Order]:
        return [o for o in self._orders.values() if o.customer_id == customer_id]
