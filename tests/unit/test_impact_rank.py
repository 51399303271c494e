"""Ranking: each signal, the penalties, changelogs and the schema-change rule (impact.combine)."""

from __future__ import annotations

import pytest
from test_impact_graph import corpus_of

from genesis_git.impact.analyse import analyze
from genesis_git.impact.combine import RankOptions, Weights, rank
from genesis_git.impact.history import History

SHOP = {
    "app/services/order_service.py": (
        "from app.models.order import Order\n\n\nclass OrderService:\n"
        "    def create(self, customer_id, items):\n        return Order(customer_id=customer_id)\n"),
    "app/controllers/order_controller.py": (
        "from app.services.order_service import OrderService\n\n\nclass OrderController:\n"
        "    def post(self, body):\n        return OrderService().create(body['c'], [])\n"),
    "app/reports.py": "from app.services.order_service import OrderService\n\nNAME = 'report'\n",
    "app/models/order.py": (
        "class Order(Model):\n    __tablename__ = \"orders\"\n    id = Column(\"INTEGER\")\n"
        "    customer_id = Column(\"INTEGER\")\n    status = Column(\"TEXT\")\n"
        "    total_cents = Column(\"INTEGER\")\n"),
    "db/schema.sql": ("CREATE TABLE orders (\n  id INTEGER,\n  customer_id INTEGER,\n"
                      "  status TEXT,\n  total_cents INTEGER\n);\n"),
    "app/templates/order.html": "{{ order.customer_id }} {{ order.status }} {{ order.total_cents }}\n",
    "docs/orders.md": "# 订单表\n\ncustomer_id, status, total_cents 字段说明。\n",
    "CHANGES.md": "## Unreleased\n\n- orders: discount codes\n",
    "package-lock.json": '{"name": "orders", "discount": "code"}\n',
}


def ranked(files: dict[str, str], requirement: str, **kwargs: object) -> dict[str, dict]:
    r = rank(corpus_of(files), analyze(requirement), RankOptions(**kwargs))  # type: ignore[arg-type]
    return {f.path: f.reasons for f in r.files}


def test_callers_of_a_named_symbol_are_affected() -> None:
    reasons = ranked(SHOP, "change the signature of OrderService.create")
    assert "definition" in reasons["app/services/order_service.py"]
    callers = reasons["app/controllers/order_controller.py"]["graph"]
    assert 0.1 < callers < 0.15  # the whole weight, less for a symbol two files use
    assert reasons["app/reports.py"]["graph"] == pytest.approx(callers / 2)  # never calls create
    assert "fields" not in reasons.get("app/models/order.py", {})  # Order is only part of a name
    assert "definition" not in reasons.get("db/schema.sql", {})
    bare = ranked(SHOP, "change the signature of OrderService.create", graph=False)
    assert "graph" not in bare["app/controllers/order_controller.py"]


def test_a_field_change_ranks_the_tables_mirrors() -> None:
    r = rank(corpus_of(SHOP), analyze("订单表新增字段 discount_code"), RankOptions())
    assert r.files[0].path == "app/models/order.py"
    reasons = {f.path: f.reasons for f in r.files}
    assert {p: x["fields"] for p, x in reasons.items() if "fields" in x} == {
        "app/models/order.py": 1.0, "db/schema.sql": 1.0, "app/templates/order.html": 1.0,
        "docs/orders.md": pytest.approx(0.3)}
    assert [t.name for t in r.tables] == ["orders"]
    plain = rank(corpus_of(SHOP), analyze("orders are slow"), RankOptions())
    assert {f.path: f.reasons for f in plain.files}["db/schema.sql"]["fields"] == 0.35


def test_penalties_and_changelogs() -> None:
    hist = History("h", ["CHANGES.md", "db/schema.sql", "package-lock.json"],
                   [[0, 1, 2], [0, 1], [0, 1, 2]], 3, ["a" * 40, "b" * 40, "c" * 40],
                   ["discount codes", "orders", "discount"], ["discount code", "order", "discount"])
    r = rank(corpus_of(SHOP), analyze("discount code for orders"), RankOptions(), hist)
    by = {f.path: f for f in r.files}
    assert set(by["CHANGES.md"].reasons) <= {"text", "path"}  # by its own text only
    assert by["CHANGES.md"].flags == ["changelog"]
    lock = by["package-lock.json"]
    assert lock.flags == ["lock"] and lock.reasons["penalty"] < 0
    assert lock.score == pytest.approx(0.15 * (lock.score - lock.reasons["penalty"]), abs=1e-3)
    assert by["db/schema.sql"].reasons["commits"] > 0
    assert by["db/schema.sql"].notes["commits"][0] == "bbbbbbbbbb orders"
    for f in r.files:
        assert f.score == pytest.approx(sum(f.reasons.values()), abs=1e-3)


def test_churn_is_only_a_prior_for_files_the_query_reached() -> None:
    files = {"a.py": "orders\n", "b.py": "unrelated\n"}
    hist = History("h", ["a.py", "b.py"], [[1], [1], [0]], 3, [], [], [])
    reasons = {f.path: f.reasons for f in rank(corpus_of(files), analyze("orders"),
                                               RankOptions(weights=Weights(churn=0.5, recent=0.0)),
                                               hist).files}
    assert list(reasons) == ["a.py"]
    assert reasons["a.py"]["churn"] > 0


def test_ties_are_broken_by_path_and_output_is_stable() -> None:
    files = {f"m{i}.py": "orders\n" for i in (3, 1, 2)}
    once = rank(corpus_of(files), analyze("orders"), RankOptions())
    again = rank(corpus_of(files), analyze("orders"), RankOptions())
    assert [f.path for f in once.files] == ["m1.py", "m2.py", "m3.py"]
    assert [(f.path, f.score, f.reasons) for f in once.files] == [
        (f.path, f.score, f.reasons) for f in again.files]


def test_named_files_rank_first() -> None:
    files = {"src/pkg/core.py": "x = 1\n", "src/pkg/other.py": "core core core\n",
             "README.md": "core\n"}
    top = rank(corpus_of(files), analyze("Update core.py"), RankOptions()).files[0]
    assert top.path == "src/pkg/core.py" and top.reasons["named"] == 0.5
