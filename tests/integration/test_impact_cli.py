"""``genesis impact``: the headline example, shapes, determinism, engines and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app

from helpers import git, running, write

runner = CliRunner()
REQ = "订单表新增字段 discount_code"
FOUR = {"db/schema.sql", "app/models/order.py", "app/api/schemas.py",
        "app/templates/order_detail.html"}


def impact(*args: str) -> Any:
    return runner.invoke(app, ["impact", *args])


def test_headline_schema_change_ranks_ddl_model_schema_and_template_first(shop: Path) -> None:
    res = impact(REQ, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data) == ["schema", "requirement", "mode", "warnings", "weak_evidence", "impacts",
                          "files"]
    assert data["schema"] == 1 and data["warnings"] == []
    assert data["requirement"] == REQ and data["mode"] == "cross-reference"
    paths = [f["path"] for f in data["files"]]
    assert set(paths[:4]) == FOUR  # the four artifacts that must change are the top 4 files
    assert not any("user" in p or "login" in p for p in paths[:5])
    fields = [i for i in data["impacts"] if i["kind"] == "field"]
    assert [(i["target"], i["path"], i["type"]) for i in fields] == [
        ("orders.discount_code", "app/models/order.py", "add"),
        ("orders.discount_code", "db/schema.sql", "add")]
    schema = next(i for i in data["impacts"] if i["path"] == "app/api/schemas.py")
    assert (schema["kind"], schema["target"], schema["type"]) == ("symbol", "OrderOut", "modify")
    assert "mirrors the columns of table orders" in schema["detail"]
    assert schema["evidence"][-1] == "mirrors the columns of table orders"
    for f in data["files"]:  # reasons break the score into its signals
        assert f["score"] == pytest.approx(sum(f["reasons"].values()), abs=1e-3)
        assert set(f["reasons"]) <= {"text", "path", "named", "definition", "graph", "fields",
                                     "cochange", "commits", "churn", "story", "penalty",
                                     "traceback", "bridge", "feedback", "prior"}
    for item in data["impacts"]:
        assert set(item) == {"target", "kind", "path", "lines", "type", "detail", "evidence",
                             "score", "reasons", "confidence"}
        assert item["kind"] in ("file", "symbol", "field")
        assert item["type"] in ("modify", "add", "delete")


def test_same_input_same_output(shop: Path) -> None:
    first = impact(REQ, "--json", "-k", "20")
    second = impact(REQ, "--json", "-k", "20")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    assert len(json.loads(first.stdout)["files"]) == 20


def test_text_and_markdown_renderings(shop: Path) -> None:
    res = impact(REQ, "-k", "3")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0] == f"impact of: {REQ}  [cross-reference]"
    assert lines[2] == "files:"
    assert lines[3].startswith("  1. app/models/order.py  ")
    assert "  [add] field orders.discount_code  app/models/order.py:" in res.stdout
    md = impact(REQ, "--markdown", "-k", "3")
    assert md.exit_code == 0
    assert md.stdout.startswith(f"# Impact: {REQ}\n\nMode: cross-reference\n\n"
                                "| # | file | score | reasons |\n|---|---|---|---|\n| 1 | "
                                "`app/models/order.py` |")
    assert "\n## Impacts\n\n- **add** field `orders.discount_code`" in md.stdout


def test_real_console_entry_starts_a_session_and_says_so(shop: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "impact", REQ, "--json", "-k", "4"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("genesis: no session yet: started s-")
    assert {f["path"] for f in json.loads(proc.stdout)["files"]} == FOUR


def test_prompt_prints_the_assembled_prompt(shop: Path) -> None:
    res = impact(REQ, "--prompt", "--engine", "cmd:no-such-llm")
    assert res.exit_code == 0
    assert res.stdout.startswith(f"# Requirement\n\n{REQ}\n\n# Repository excerpts")
    assert "\n## app/models/order.py:" in res.stdout
    assert "\n# Files ranked by the cross-reference (path, score)\n" in res.stdout
    assert res.stdout.rstrip().endswith("Most affected first.")


def test_nothing_matches_says_so_with_close_terms(shop: Path) -> None:
    res = impact("custmer adress", "--json")
    assert res.exit_code == 1  # nothing found: grep's 1
    assert json.loads(res.stdout) == {"schema": 1,
                                      "requirement": "custmer adress", "mode": "cross-reference",
                                      "warnings": [], "weak_evidence": False, "impacts": [],
                                      "files": []}
    assert res.stderr.endswith("genesis: nothing in the index matches 'custmer adress'; close "
                               "terms: address, customer, customer_id\n")
    plain = impact("qwxz")
    assert plain.exit_code == 1 and plain.stdout == ""
    assert plain.stderr.endswith("genesis: nothing in the index matches 'qwxz'\n")


@pytest.mark.parametrize("args, message", [
    (["", "--json"], "genesis: error: the requirement is empty"),
    (["the of and"], "genesis: error: the requirement 'the of and' has no searchable terms"),
    ([REQ, "-k", "0"], "genesis: error: -k must be at least 1 (got 0)"),
    ([REQ, "--json", "--markdown"], "genesis: error: --json and --markdown cannot be used together"),
    ([REQ, "--engine", "gpt"], "genesis: error: unknown engine 'gpt'"),
])
def test_bad_input_is_one_line_exit_2(shop: Path, args: list[str], message: str) -> None:
    res = impact(*args)
    assert res.exit_code == 2
    assert res.stderr.startswith(message)
    assert len(res.stderr.strip().splitlines()) == 1


def _script(shop: Path, body: str) -> str:
    path = shop.parent / "llm.py"
    path.write_text(body, encoding="utf-8")
    return f"cmd:{sys.executable} {path}"


def test_cmd_engine_answer_becomes_the_rag_result(shop: Path) -> None:
    engine = _script(shop, (
        "import json, sys\nprompt = sys.stdin.read()\nassert 'db/schema.sql' in prompt\n"
        "print(json.dumps({'impacts': [{'target': 'orders.discount_code', 'kind': 'field', "
        "'path': 'db/schema.sql', 'lines': [15, 25], 'type': 'add', 'detail': '新增列'}, "
        "{'target': 'app/services/coupon.py', 'kind': 'file', 'path': 'app/services/coupon.py', "
        "'type': 'add'}]}))\n"))
    res = impact(REQ, "--engine", engine, "--json", "-k", "5")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mode"] == "rag"
    assert [(i["target"], i["type"]) for i in data["impacts"]] == [
        ("orders.discount_code", "add"), ("app/services/coupon.py", "add")]
    first = data["impacts"][0]
    assert first["reasons"]["llm"] == 0.5 and first["evidence"][0].startswith("db/schema.sql:")
    assert data["files"][0]["path"] == "db/schema.sql"
    assert data["files"][0]["reasons"]["llm"] == 0.5
    assert res.stderr.endswith("genesis: warning: the engine named paths that are not in the "
                               "index: app/services/coupon.py\n")
    assert data["warnings"] == ["the engine named paths that are not in the index: "
                                "app/services/coupon.py"]  # the same in the JSON


def test_failing_engines_fall_back_with_a_warning(shop: Path) -> None:
    garbage = _script(shop, "print('Sure! The orders table changes.')\n")
    res = impact(REQ, "--engine", garbage, "--json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["mode"] == "cross-reference" and {f["path"] for f in data["files"][:4]} == FOUR
    assert res.stderr.endswith("genesis: warning: the engine's answer is not valid JSON; "
                               "showing the cross-reference result instead\n")
    assert data["warnings"] == ["the engine's answer is not valid JSON; "
                                "showing the cross-reference result instead"]
    crash = _script(shop, "import sys\nsys.exit('model not found')\n")
    res = impact(REQ, "--engine", crash, "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["files"]
    assert "exited with status 1: model not found; showing the cross-reference result" in res.stderr
    res = impact(REQ, "--rag", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["mode"] == "cross-reference"
    assert res.stderr.endswith('genesis: warning: no LLM engine is configured (impact.engine is '
                               '"none"); showing the cross-reference result instead\n')
    res = impact(REQ, "--engine", garbage, "--no-rag", "--json")
    assert res.exit_code == 0 and "warning" not in res.stderr


def test_openai_engine_through_the_cli_against_a_real_server(shop: Path) -> None:
    with running() as server:
        write(shop, ".genesis.toml",
              f'[impact]\nengine = "openai"\nbase_url = "{server.base_url}"\nmodel = "m1"\n')
        res = impact(REQ, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mode"] == "rag"  # a configured engine turns the RAG path on
    assert data["impacts"][0]["target"] == "orders.discount_code"
    prompt = server.requests[0]["body"]["messages"][1]["content"]
    assert prompt.startswith(f"# Requirement\n\n{REQ}\n")


def test_ablation_flags_remove_their_signals(shop: Path) -> None:
    write(shop, "db/schema.sql", (shop / "db/schema.sql").read_text() + "\n-- discount codes\n")
    write(shop, "app/templates/order_detail.html",
          (shop / "app/templates/order_detail.html").read_text() + "\n")
    git(shop, "commit", "-q", "-am", "Show discount codes on the order page")
    full = json.loads(impact(REQ, "--json", "-k", "30").stdout)
    reasons = {f["path"]: f["reasons"] for f in full["files"]}
    assert "commits" in reasons["app/templates/order_detail.html"]
    assert any("cochange" in r for r in reasons.values())
    assert "fields" in reasons["app/api/schemas.py"]
    bare = json.loads(impact(REQ, "--json", "-k", "30", "--no-history", "--no-graph",
                             "--no-stories").stdout)
    for f in bare["files"]:
        assert not {"cochange", "commits", "churn", "graph", "fields", "story"} & set(f["reasons"])


def test_similar_stories_of_the_ledger_lend_their_files(shop: Path) -> None:
    from genesis_git.git.repo import find_repo
    from genesis_git.store.connect import connect, store_path

    conn = connect(store_path(find_repo(shop)))
    conn.execute("INSERT INTO story_records(story_id, project_id, title) VALUES (?, ?, ?)",
                 ("STORY-7", "shop", "订单折扣码 discount code at checkout"))
    conn.execute("INSERT INTO story_artifacts(story_id, artifact_role, path, summary) "
                 "VALUES (?, ?, ?, ?)", ("STORY-7", "analysis", "app/services/order_service.py",
                                         "折扣码在下单时校验"))
    conn.close()
    data = json.loads(impact(REQ, "--json", "-k", "30").stdout)
    service = next(f for f in data["files"] if f["path"] == "app/services/order_service.py")
    assert service["reasons"]["story"] == 0.3
    item = next(i for i in data["impacts"] if i["path"] == "app/services/order_service.py")
    assert "stories: STORY-7" in item["evidence"]
    bare = json.loads(impact(REQ, "--json", "-k", "30", "--no-stories").stdout)
    assert all("story" not in f["reasons"] for f in bare["files"])
