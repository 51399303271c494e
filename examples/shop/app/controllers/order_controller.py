"""OrderController: turns /orders requests into OrderService calls and back into responses."""

from __future__ import annotations

from typing import Any

from app.api.schemas import OrderCreate, OrderOut, ValidationError
from app.services.order_service import OrderNotFound, OrderService

Response = tuple[int, dict[str, Any]]


class OrderController:
    def __init__(self, service: OrderService | None = None) -> None:
        self.service = service or OrderService()

    def _render(self, order_id: int) -> dict[str, Any]:
        order = self.service.get(order_id)
        return OrderOut.from_model(order, self.service.items(order_id)).to_dict()

    def create_order(self, body: dict[str, Any]) -> Response:
        try:
            order = self.service.create(OrderCreate.from_dict(body))
        except ValidationError as exc:
            return 422, {"error": str(exc)}
        return 201, self._render(order.id)

    def get_order(self, order_id: int) -> Response:
        try:
            return 200, self._render(order_id)
        except OrderNotFound as exc:
            return 404, {"error": str(exc)}

    def cancel_order(self, order_id: int) -> Response:
        try:
            self.service.cancel(order_id)
        except OrderNotFound as exc:
            return 404, {"error": str(exc)}
        except ValueError as exc:
            return 409, {"error": str(exc)}
        return 200, self._render(order_id)

    def order_total(self, order_id: int) -> Response:
        try:
            total = self.service.total(order_id)
        except OrderNotFound as exc:
            return 404, {"error": str(exc)}
        currency = self.service.get(order_id).currency
        return 200, {"order_id": order_id, "total_cents": total, "currency": currency}
