"""ImpactRAG (seed 000, task 3): index sources per scope, retrieve the closest chunks."""

from __future__ import annotations

from genesis_git.providers.embedders import FakeEmbedder
from genesis_git.rag.impact_rag import ImpactRAG, split_source
from genesis_git.rag.store import RagStore


def test_retrieve_returns_relevant_chunk() -> None:
    store = RagStore(":memory:")
    rag = ImpactRAG(store, FakeEmbedder())
    sources = [
        ("OrderController.java", "public class OrderController { 创建订单 }"),
        ("UserAuth.java", "public class UserAuth { 用户登录认证 }"),
    ]
    rag.index("p1", sources)
    res = rag.retrieve("p1", "OrderController 的影响范围", k=1)
    assert res and "OrderController" in res[0]


def test_index_again_replaces_the_scope() -> None:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    assert rag.index("p1", [("a.py", "class OrderService:\n    pass\n")]) == 1
    assert rag.index("p1", [("b.py", "class UserService:\n    pass\n")]) == 1
    assert rag.store.count("p1") == 1
    assert [c.chunk for c in rag.sources("p1")] == ["[b.py]\nclass UserService:\n    pass"]
    assert all("OrderService" not in hit for hit in rag.retrieve("p1", "OrderService", k=5))
    assert rag.retrieve("p1", "UserService", k=5) == ["[b.py]\nclass UserService:\n    pass"]


def test_empty_query_returns_nothing() -> None:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    rag.index("p1", [("a.md", "# 订单\n\n订单表\n")])
    assert rag.retrieve("p1", "", k=3) == []
    assert rag.retrieve("p1", "   \n", k=3) == []
    assert rag.retrieve("p1", "订单", k=0) == []


def test_chunks_keep_their_path_and_lines() -> None:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    text = "# Orders\n\nintro\n\n## Fields\n\ndiscount_code is new\n"
    rag.index("docs", [("docs/orders.md", text)])
    hits = rag.retrieve_chunks("docs", "discount_code field", k=1)
    assert hits[0].meta == {"path": "docs/orders.md", "start_line": 5, "end_line": 7,
                            "kind": "section", "section": "Orders > Fields"}
    assert hits[0].chunk.startswith("[docs/orders.md]\n## Fields")
    assert [c.meta["start_line"] for c in rag.sources("docs")] == [1, 5]


def test_split_source_of_python_keeps_symbols() -> None:
    pairs = split_source("svc.py", "import os\n\n\ndef create_order():\n    return 1\n")
    assert [(m["kind"], m.get("symbol")) for _, m in pairs] == [("module", None),
                                                                ("function", "create_order")]


def test_index_of_nothing_empties_the_scope() -> None:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    rag.index("p", [("a.txt", "order")])
    assert rag.index("p", []) == 0
    assert rag.store.count("p") == 0
