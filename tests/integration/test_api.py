"""genesis_git.app.facade.Genesis: one façade of services over session, search, impact, story
and design."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.impact.agent import ImpactOptions
from genesis_git.kernel.errors import GenesisError
from genesis_git.providers.embedders import FakeEmbedder
from genesis_git.rag.impact_rag import ImpactRAG
from genesis_git.rag.store import RagStore
from genesis_git.search.results import SearchOptions

pytestmark = pytest.mark.shop(message="STORY-3: shop example", chdir=False)


# -- seed 000, task 5 (GenesisService with use_rag), adapted -----------------------

def test_service_impact_uses_rag_when_enabled(tmp_path: Path) -> None:
    rag_store = RagStore(str(tmp_path / "rag.db"))
    rag = ImpactRAG(rag_store, FakeEmbedder())
    rag.index("p1", [("OrderController.java", "class OrderController { 创建订单 }")])
    svc = Genesis(tmp_path, engine="none", use_rag=True, rag=rag, scope="p1")
    assert svc.impact.use_rag is True and svc.impact.rag is rag


def test_rag_facade_asks_the_engine_and_falls_back(tmp_path: Path, mocker: Any) -> None:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    rag.index("p1", [("OrderController.java", "class OrderController { 创建订单 }")])
    engine = mocker.Mock()
    engine.complete.return_value = '{"impacts": [{"target": "OrderController", "type": "修改"}]}'
    g = Genesis(tmp_path, use_rag=True, rag=rag, scope="p1", engine=engine)
    out = g.impact.run("订单表新增字段").result
    assert out["mode"] == "rag" and out["impacts"][0]["target"] == "OrderController"
    assert "OrderController.java" in engine.complete.call_args.args[0]
    engine.complete.side_effect = TimeoutError("slow")
    report = g.impact.run("订单表新增字段")
    assert report.result["mode"] == "cross-reference" and report.result["files"]
    assert report.warnings == ["the engine failed (TimeoutError: slow); "
                               "showing the cross-reference result instead"]
    assert g.impact.run("订单表新增字段", use_rag=False).result["mode"] == "cross-reference"


# -- a repository ---------------------------------------------------------------------

def test_session_search_and_impact_of_a_repository(shop: Path) -> None:
    with Genesis(shop) as g:
        sid = g.sessions.current()
        assert sid.startswith("s-") and g.sessions.current() == sid
        info = g.sessions.summary()
        assert info["id"] == sid and info["files"] == 27
        hits = g.search.run("order total", SearchOptions(k=3))
        assert hits.hits and hits.hits[0].path
        files = g.search.run("order total", SearchOptions(k=3, files=True))
        assert len({h.path for h in files.hits}) <= 3
        out = g.impact.run("订单表新增字段 discount_code", ImpactOptions(k=4)).result
        assert {f["path"] for f in out["files"]} == {
            "db/schema.sql", "app/models/order.py", "app/api/schemas.py",
            "app/templates/order_detail.html"}
        prompt = g.impact.prompt("订单表新增字段 discount_code", ImpactOptions(k=4))
        assert prompt.startswith("# Requirement\n\n订单表新增字段 discount_code\n")
        ablated = g.impact.run("订单表新增字段 discount_code",
                               ImpactOptions(graph=False, history=False, stories=False)).result
        assert all("fields" not in f["reasons"] for f in ablated["files"])
    assert not g.workspace.is_open  # closed on leaving the block


def test_story_and_design_parts(shop: Path) -> None:
    g = Genesis(shop)
    assert g.stories.texts() == []
    with pytest.raises(GenesisError, match="STORY-99"):
        g.stories.context("STORY-99")
    with pytest.raises(GenesisError):
        g.design.search("card spacing")  # no design library in this repository yet
    g.close()


def test_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GenesisError, match="not a git repository"):
        Genesis(tmp_path).sessions.current()


def test_story_context_and_design_search_when_present(shop: Path) -> None:
    from genesis_git.design.ingest import ingest_rules
    from genesis_git.design.library import open_library

    with Genesis(shop) as g:
        g.workspace.caught_up().conn.execute(
            "INSERT INTO story_records(story_id, project_id, title) VALUES (?, ?, ?)",
            ("STORY-3", "shop", "订单折扣码"))
        ctx = g.stories.context("STORY-3")
        assert ctx["story"]["story_id"] == "STORY-3"
        assert ctx["commits"] == [] and ctx["files"] == []
        assert g.stories.texts() == [("STORY-3", "订单折扣码", [])]
        ingest_rules(open_library(shop))
        found = g.design.search("card spacing", top=2)
        assert found["query"] == "card spacing" and len(found["results"]) <= 2


def test_the_seed_imports_work_from_the_rag_package() -> None:
    import genesis_git.rag as rag
    from genesis_git.rag import ImpactRAG, RagStore, get_embedder

    assert get_embedder("fake").__class__.__name__ == "FakeEmbedder"
    assert RagStore.__module__ == "genesis_git.rag.store"
    assert ImpactRAG.__module__ == "genesis_git.rag.impact_rag"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = rag.nope
