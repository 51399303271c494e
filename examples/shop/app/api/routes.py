"""The /orders endpoints: a route table built with small decorators."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.controllers.order_controller import OrderController, Response

Handler = Callable[..., Response]


class Router:
    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self.routes: list[tuple[str, str, Handler]] = []

    def route(self, method: str, path: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.routes.append((method, self.prefix + path, handler))
            return handler
        return register

    def get(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("GET", path)

    def post(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("POST", path)

    def dispatch(self, method: str, path: str, body: dict[str, Any] | None = None) -> Response:
        for m, pattern, handler in self.routes:
            regex = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>\\d+)", pattern) + "$"
            match = re.match(regex, path)
            if m == method and match:
                params = {k: int(v) for k, v in match.groupdict().items()}
                return handler(body or {}, **params) if method == "POST" else handler(**params)
        return 404, {"error": f"no route for {method} {path}"}


router = Router(prefix="/orders")
controller = OrderController()


@router.post("")
def create_order(body: dict[str, Any]) -> Response:
    """Create an order from an OrderCreate body; answers 201 with an OrderOut."""
    return controller.create_order(body)


@router.get("/{order_id}")
def get_order(order_id: int) -> Response:
    return controller.get_order(order_id)


@router.post("/{order_id}/cancel")
def cancel_order(body: dict[str, Any], order_id: int) -> Response:
    return controller.cancel_order(order_id)


@router.get("/{order_id}/total")
def order_total(order_id: int) -> Response:
    return controller.order_total(order_id)
