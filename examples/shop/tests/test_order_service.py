"""OrderService and OrderController: create, total, cancel, and the error paths."""

from __future__ import annotations

import pytest

from app.api.routes import router
from app.api.schemas import OrderCreate, OrderItemIn, ValidationError
from app.controllers.order_controller import OrderController
from app.models.order import Order
from app.services.order_service import OrderNotFound, OrderService


def fixed_clock() -> str:
    return "2024-05-01T10:00:00+00:00"


def new_request(**overrides) -> OrderCreate:
    values = {"customer_id": 7,
              "items": [OrderItemIn("TEA-01", 2, 1250), OrderItemIn("CUP-02", 1, 3900)]}
    values.update(overrides)
    return OrderCreate(**values)


def test_create_stores_the_order_and_its_total() -> None:
    service = OrderService(clock=fixed_clock)
    order = service.create(new_request())
    assert order.id == 1
    assert order.status == "pending"
    assert order.created_at == "2024-05-01T10:00:00+00:00"
    assert order.total_cents == 2 * 1250 + 3900
    assert service.total(order.id) == 6400
    assert [i.sku for i in service.items(order.id)] == ["TEA-01", "CUP-02"]


def test_an_order_needs_items_and_a_known_currency() -> None:
    service = OrderService(clock=fixed_clock)
    with pytest.raises(ValidationError, match="at least one item"):
        service.create(new_request(items=[]))
    with pytest.raises(ValidationError, match="unsupported currency XYZ"):
        service.create(new_request(currency="XYZ"))


def test_cancel_pending_order_then_refuse_shipped() -> None:
    service = OrderService(clock=fixed_clock)
    order = service.create(new_request())
    assert service.cancel(order.id).status == "cancelled"
    assert order.cancelled_at == "2024-05-01T10:00:00+00:00"
    shipped = service.create(new_request())
    shipped.status = "shipped"
    with pytest.raises(ValueError, match="can no longer be cancelled"):
        service.cancel(shipped.id)


def test_unknown_order() -> None:
    with pytest.raises(OrderNotFound):
        OrderService().total(99)


def test_model_refuses_unknown_columns() -> None:
    assert list(Order.columns())[:3] == ["id", "customer_id", "status"]
    with pytest.raises(TypeError, match="orders has no column"):
        Order(id=1, colour="red")


def test_controller_and_routes_speak_http_status_codes() -> None:
    controller = OrderController(OrderService(clock=fixed_clock))
    status, body = controller.create_order({"customer_id": 3, "items": [
        {"sku": "TEA-01", "quantity": 1, "unit_price_cents": 500}]})
    assert status == 201 and body["total_cents"] == 500
    assert controller.create_order({"items": []})[0] == 422
    assert controller.get_order(42)[0] == 404
    status, body = router.dispatch("POST", "/orders", {"customer_id": 1, "items": [
        {"sku": "CUP-02", "quantity": 3, "unit_price_cents": 100}]})
    assert status == 201
    assert router.dispatch("GET", f"/orders/{body['id']}/total")[1]["total_cents"] == 300
    assert router.dispatch("POST", f"/orders/{body['id']}/cancel")[1]["status"] == "cancelled"
    assert router.dispatch("GET", "/nowhere")[0] == 404
