"""Impact in one pass: impact.run, its options, its typed result, a corpus ranking never changes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from genesis_git.config.settings import load_config
from genesis_git.impact import SCHEMA, ImpactAgent, ImpactOptions, ImpactResult, Scope, run
from genesis_git.impact.corpus_session import load_context_corpus
from genesis_git.index.session import ensure_session, open_context
from genesis_git.kernel.errors import UsageError
from genesis_git.providers.embedders import FakeEmbedder
from genesis_git.rag.impact_rag import ImpactRAG
from genesis_git.rag.store import RagStore
from genesis_git.search.session_index import clear_memory

from helpers import make_repo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shop"
SOURCES = [
    ("app/orders.py", "class Order:\n    discount_code = None\n\n\ndef create_order():\n"
                      "    return Order()\n"),
    ("app/views.py", "from app.orders import create_order\n\n\ndef post():\n"
                     "    return create_order()\n"),
    ("docs/orders.md", "# Orders\n\nAn order may carry a discount code.\n"),
]
REQ = "add a discount code to orders"


class Recorder:
    """An engine that answers with a fixed text and keeps the prompts it got."""

    name = "recorder"

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    def complete(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer


def _scope(config_text: str | None = None, tmp_path: Path | None = None) -> Scope:
    rag = ImpactRAG(RagStore(":memory:"), FakeEmbedder())
    rag.index("p1", SOURCES)
    config = None
    if config_text is not None and tmp_path is not None:
        (tmp_path / ".genesis.toml").write_text(config_text, encoding="utf-8")
        config = load_config(tmp_path)
    return Scope(rag, "p1", config)


def test_run_gives_one_typed_result_and_its_json() -> None:
    out = run(_scope(), REQ, ImpactOptions(k=2))
    assert isinstance(out, ImpactResult) and out.mode == "cross-reference"
    assert [f.path for f in out.files] == ["app/orders.py", "docs/orders.md"]
    data = out.to_json()
    assert list(data) == ["schema", "requirement", "mode", "warnings", "weak_evidence", "impacts",
                         "files"]
    assert data["schema"] == SCHEMA == 1 and data["warnings"] == []
    assert {k: v for k, v in data.items()
            if k not in ("schema", "warnings", "weak_evidence")} == out.result
    assert out.result == ImpactAgent(rag=_scope().rag, options=ImpactOptions(k=2)).run_impact(
        REQ, scope="p1")
    assert "app/orders.py:2: discount_code = None" in out.impacts[0].evidence
    with pytest.raises(UsageError, match="-k must be at least 1"):
        run(_scope(), REQ, ImpactOptions(k=0))


def test_the_engine_is_one_more_signal_and_evidence_is_read_for_it() -> None:
    engine = Recorder('{"impacts": [{"target": "post", "path": "app/views.py"},'
                      ' {"target": "x", "path": "app/missing.py"}]}')
    out = run(_scope(), REQ, ImpactOptions(k=3, engine=engine))
    assert len(engine.prompts) == 1 and "## app/orders.py:" in engine.prompts[0]
    assert out.mode == "rag"
    views = next(f for f in out.files if f.path == "app/views.py")
    assert views.reasons["llm"] == 0.5 and views.score == round(sum(views.reasons.values()), 4)
    assert out.impacts[0].reasons["llm"] == 0.5 and out.impacts[1].reasons == {"llm": 0.25}
    assert out.impacts[0].evidence and out.impacts[0].evidence[0].startswith("app/views.py:")
    assert out.impacts[1].evidence == []  # a path the corpus does not hold has no lines
    assert out.warnings == ["the engine named paths that are not in the index: app/missing.py"]
    assert out.to_json()["warnings"] == out.warnings


def test_rag_by_default_only_when_an_engine_is_configured(tmp_path: Path) -> None:
    assert ImpactOptions().rag is None
    plain = run(_scope("[impact]\nk = 1\n", tmp_path), REQ, ImpactOptions(prompt_only=True))
    assert plain.mode == "cross-reference" and plain.prompt is not None
    assert plain.prompt.count("\n## ") == 1  # impact.k chunks in the prompt: one
    script = tmp_path / "engine.py"
    script.write_text("import json, sys\nsys.stdin.read()\nprint(json.dumps({'impacts': "
                      "[{'target': 'Order', 'path': 'app/orders.py'}]}))\n", encoding="utf-8")
    config = f'[impact]\nengine = "cmd:{sys.executable} {script}"\n'
    asked = run(_scope(config, tmp_path), REQ)
    assert asked.mode == "rag" and asked.impacts[0].target == "Order"
    assert run(_scope(config, tmp_path), REQ, ImpactOptions(rag=False)).mode == "cross-reference"
    failing = run(_scope(), REQ, ImpactOptions(rag=True))
    assert failing.mode == "cross-reference" and failing.files
    assert failing.to_json()["warnings"] == [
        'no LLM engine is configured (impact.engine is "none"); '
        "showing the cross-reference result instead"]


def test_prompt_only_asks_nothing() -> None:
    engine = Recorder("never read")
    out = run(_scope(), REQ, ImpactOptions(engine=engine, rag=True, prompt_only=True))
    assert engine.prompts == [] and out.mode == "cross-reference"
    assert out.prompt is not None and out.prompt.startswith(f"# Requirement\n\n{REQ}\n")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, genesis_env: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLES, root)
    make_repo(root)
    monkeypatch.chdir(root)
    clear_memory()
    return root


def test_a_kept_session_corpus_is_read_never_changed(shop: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    kept = load_context_corpus(ctx, sid)
    kept.keep = True
    facts = {p: doc.facts for p, doc in kept.files.items()}
    asked: list[str] = []

    def corpus_of(session_id: str):  # type: ignore[no-untyped-def]
        asked.append(session_id)
        return kept

    first = run(ctx, "订单表新增字段 discount_code", ImpactOptions(k=5), corpus=corpus_of)
    assert asked == [sid]
    assert all(not doc.chunks for doc in kept.files.values())  # the files shown were read aside
    assert {p: doc.facts for p, doc in kept.files.items()} == facts
    assert first.impacts and all(i.evidence for i in first.impacts if i.kind != "field")
    fresh = run(ctx, "订单表新增字段 discount_code", ImpactOptions(k=5), session_id=sid)
    assert fresh.result == first.result
    again = run(ctx, "订单表新增字段 discount_code", ImpactOptions(k=5), corpus=kept)
    assert again.result == first.result
    assert json.loads(json.dumps(again.to_json(), ensure_ascii=False))["files"] == \
        [f.as_dict() for f in again.files]
