"""ImpactAgent with use_rag (seed 000, task 4), over an ImpactRAG scope."""

from __future__ import annotations

from typing import Any

import pytest

from genesis_git.impact.agent import ImpactAgent, ImpactOptions
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.providers.embedders import FakeEmbedder
from genesis_git.rag.impact_rag import ImpactRAG
from genesis_git.rag.store import RagStore

ANSWER = '{"impacts":[{"target":"OrderController","type":"修改","detail":"受订单表影响"}]}'


def _make(**kwargs: Any) -> ImpactAgent:
    store = RagStore(":memory:")
    rag = ImpactRAG(store, FakeEmbedder())
    rag.index("p1", [("OrderController.java", "class OrderController { 创建订单 }")])
    return ImpactAgent(rag=rag, **kwargs)


# -- the seed's own case -----------------------------------------------------------

def test_run_impact_includes_rag_context(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = _make()
    captured = {}

    def fake_engine_invoke(prompt: str) -> str:
        captured["prompt"] = prompt
        return ANSWER

    monkeypatch.setattr(agent, "_engine_invoke", fake_engine_invoke)
    out = agent.run_impact("订单表新增字段", scope="p1", use_rag=True)
    assert "OrderController" in captured["prompt"]
    assert "OrderController" in str(out)


# -- beyond the seed ---------------------------------------------------------------

def test_rag_result_has_the_engine_impacts_normalised(mocker: Any) -> None:
    agent = _make()
    invoke = mocker.patch.object(agent, "_engine_invoke", return_value=ANSWER)
    out = agent.run_impact("订单表新增字段", scope="p1", use_rag=True)
    invoke.assert_called_once()
    prompt = invoke.call_args.args[0]
    assert "## OrderController.java:1-1" in prompt
    assert "订单表新增字段" in prompt
    assert out["mode"] == "rag"
    assert out["impacts"] == [{
        "target": "OrderController", "kind": "symbol", "path": "", "lines": [],
        "type": "modify", "detail": "受订单表影响", "evidence": [], "score": 0.5,
        "reasons": {"llm": 0.5}, "confidence": 0.0}]
    assert [f["path"] for f in out["files"]] == ["OrderController.java"]
    assert agent.warnings == []


def test_without_rag_the_engine_is_never_called(mocker: Any) -> None:
    agent = _make()
    invoke = mocker.patch.object(agent, "_engine_invoke", return_value=ANSWER)
    out = agent.run_impact("订单表新增字段", scope="p1")
    invoke.assert_not_called()
    assert out["mode"] == "cross-reference"
    assert out["files"][0]["path"] == "OrderController.java"
    assert set(out) == {"requirement", "mode", "impacts", "files"}


@pytest.mark.parametrize("answer, warning", [
    ("sorry, I cannot help", "the engine's answer is not valid JSON"),
    ('{"result": 1}', "the engine's answer has no \"impacts\" list"),
    ('{"impacts": []}', "the engine's answer lists no impacts"),
])
def test_bad_answers_fall_back_to_the_cross_reference(mocker: Any, answer: str,
                                                      warning: str) -> None:
    agent = _make()
    mocker.patch.object(agent, "_engine_invoke", return_value=answer)
    out = agent.run_impact("订单表新增字段", scope="p1", use_rag=True)
    assert out["mode"] == "cross-reference"
    assert out["files"] and out["impacts"]
    assert agent.warnings == [f"{warning}; showing the cross-reference result instead"]


def test_an_engine_that_raises_anything_falls_back(mocker: Any) -> None:
    agent = _make()
    mocker.patch.object(agent, "_engine_invoke", side_effect=RuntimeError("boom"))
    out = agent.run_impact("订单表新增字段", scope="p1", use_rag=True)
    assert out["mode"] == "cross-reference" and out["files"]
    assert agent.warnings == ["the engine failed (RuntimeError: boom); "
                              "showing the cross-reference result instead"]


def test_no_engine_configured_falls_back_with_a_hint() -> None:
    agent = _make()
    out = agent.run_impact("订单表新增字段", scope="p1", use_rag=True)
    assert out["mode"] == "cross-reference"
    assert agent.warnings == ['no LLM engine is configured (impact.engine is "none"); '
                              "showing the cross-reference result instead"]


def test_engine_objects_are_used_as_given() -> None:
    class Echo:
        name = "echo"

        def complete(self, prompt: str) -> str:
            return ('```json\n{"impacts": [{"target": "OrderController.java", "kind": "file", '
                    '"path": "OrderController.java", "lines": "1-1", "type": "delete"}]}\n```')

    agent = _make(engine=Echo())
    out = agent.run_impact("删除订单", scope="p1", use_rag=True)
    assert out["impacts"][0]["type"] == "delete"
    assert out["impacts"][0]["lines"] == [1, 1]
    assert out["impacts"][0]["evidence"] == ["OrderController.java:1: class OrderController { 创建订单 }"]
    assert out["files"][0]["reasons"]["llm"] == 0.5


def test_prompt_only_and_bad_requirements() -> None:
    agent = _make()
    prompt = agent.build_prompt("订单表新增字段", scope="p1")
    assert prompt.startswith("# Requirement\n\n订单表新增字段\n")
    assert "Answer with one JSON object and nothing else" in prompt
    with pytest.raises(UsageError, match="the requirement is empty"):
        agent.run_impact("  ", scope="p1")
    with pytest.raises(UsageError, match="has no searchable terms"):
        agent.run_impact("the of and", scope="p1")
    with pytest.raises(UsageError, match="-k must be at least 1"):
        agent.run_impact("订单", scope="p1", k=0)


def test_an_agent_needs_something_to_read() -> None:
    with pytest.raises(GenesisError, match="needs a repository context or an ImpactRAG"):
        ImpactAgent().run_impact("订单")


def test_unmatched_requirement_gets_close_terms() -> None:
    store = RagStore(":memory:")
    rag = ImpactRAG(store, FakeEmbedder())
    rag.index("p1", [("orders.py", "class Order:\n    discount_code = None\n")])
    report = ImpactAgent(rag=rag, options=ImpactOptions(k=3)).investigate("discont", scope="p1")
    assert not report.matched
    assert report.result == {"requirement": "discont", "mode": "cross-reference",
                             "impacts": [], "files": []}
    assert report.suggestions == ["discount", "discount_code"]
