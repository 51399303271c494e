"""render/: one renderer per result type, the same text for the command line and the MCP
server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from typer.testing import CliRunner

from genesis_git.app.facade import Genesis
from genesis_git.cli.main import app
from genesis_git.kernel.findings import Finding
from genesis_git.render import impact, lines, search, sessions, setup, stories

runner = CliRunner()


def _impact_result() -> dict[str, Any]:
    return {
        "requirement": "add a discount code\nto orders", "mode": "heuristic",
        "files": [{"path": "src/orders.py", "score": 0.8125,
                   "reasons": {"bm25": 0.5, "graph": 0.3125}}],
        "impacts": [{"type": "CODE", "kind": "function", "target": "create_order",
                     "path": "src/orders.py", "lines": [4, 5], "detail": "",
                     "evidence": ["def create_order(self, customer_id, items):", "b", "c", "d"]},
                    {"type": "DB", "kind": "table", "target": "orders", "path": "db/schema.sql",
                     "lines": None, "detail": "add a column", "evidence": []}],
    }


def test_an_impact_report_as_text_markdown_and_the_tools_short_text() -> None:
    result = _impact_result()
    assert impact.text_lines(result) == [
        "impact of: add a discount code\nto orders  [heuristic]", "", "files:",
        "  1. src/orders.py  0.812  (bm25 +0.500, graph +0.312)", "", "impacts:",
        "  [CODE] function create_order  src/orders.py:4-5",
        "      > def create_order(self, customer_id, items):", "      > b", "      > c",
        "      > d",
        "  [DB] table orders  db/schema.sql", "      add a column"]
    assert impact.markdown_lines(result)[4:7] == [
        "| # | file | score | reasons |", "|---|---|---|---|",
        "| 1 | `src/orders.py` | 0.812 | bm25 +0.500, graph +0.312 |"]
    sure = {**result, "files": [{**result["files"][0], "confidence": 0.734}]}
    assert impact.text_lines(sure)[3] == (
        "  1. src/orders.py  0.812  confidence 0.73  (bm25 +0.500, graph +0.312)")
    assert impact.summary(sure, [], []).splitlines()[2] == (
        "  1. src/orders.py  0.812  confidence 0.73  (bm25 +0.500, graph +0.312)")
    assert impact.summary(result, ["history skipped"], []).splitlines() == [
        "warning: history skipped",
        "impact of 'add a discount code\\nto orders' [heuristic]", "files:",
        "  1. src/orders.py  0.812  (bm25 +0.500, graph +0.312)", "impacts:",
        "  [CODE] function create_order  src/orders.py:4-5",
        "      > def create_order(self, customer_id, items):", "      > b", "      > c",
        "  [DB] table orders  db/schema.sql: add a column"]
    empty = {**result, "files": [], "impacts": []}
    assert impact.summary(empty, [], ["discount", "order"]).splitlines()[1] == (
        "nothing in the index matches the requirement; close terms: discount, order")
    assert impact.no_match("qwxzv", []) == "nothing in the index matches 'qwxzv'"


def test_doctor_and_sessions_render_without_a_store() -> None:
    found = [Finding("git", "ok", "git 2.43"),
             Finding("hooks", "warn", "not installed", "genesis hooks install"),
             Finding("store", "error", "corrupt", "genesis doctor")]
    assert setup.doctor_lines(found) == [
        "[ok  ] git: git 2.43", "[warn] hooks: not installed",
        "       fix: genesis hooks install", "[FAIL] store: corrupt", "       fix: genesis doctor",
        "", "1 check(s) failed"]
    assert setup.doctor_json(found)["ok"] is False
    assert setup.doctor_lines(found[:1])[-1] == "all checks passed"
    assert setup.doctor_json(found[:2]) == {"ok": True, "checks": [
        {"name": "git", "status": "ok", "message": "git 2.43", "fix": ""},
        {"name": "hooks", "status": "warn", "message": "not installed",
         "fix": "genesis hooks install"}]}
    assert sessions.list_lines([]) == ["no sessions"]
    assert sessions.status_short(None).startswith("no active session (session_start")
    assert stories.list_short({"stories": []}).startswith("no stories yet")
    assert lines.json_text({"z": "订单", "a": 1}) == '{\n  "z": "订单",\n  "a": 1\n}'
    assert lines.with_warnings(["x"], ["w"]) == ["warning: w", "x"]
    assert lines.one_line(" a\n  b ") == "a b"


def test_the_command_line_prints_what_render_gives(repo: Path) -> None:
    with Genesis() as g:
        result = g.search.run("order", g.search.options(k=3, files=True))
    out = runner.invoke(app, ["search", "order", "-k", "3", "--files", "--explain"])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines() == search.plain_lines(result, files=True, explain=True)
    assert any(line.startswith("src/shop/orders.py\t") for line in out.stdout.splitlines())
    assert "    matched: order" in out.stdout.splitlines()
    md = runner.invoke(app, ["search", "order", "-k", "3", "--markdown"])
    with Genesis() as g:
        chunks = g.search.run("order", g.search.options(k=3))
    assert md.stdout == search.to_markdown(chunks).rstrip("\n") + "\n"
    assert md.stdout.startswith("# Context for: order\n")
    session = runner.invoke(app, ["session", "status"])
    with Genesis() as g:
        active = g.sessions.active()
    assert active is not None
    assert session.stdout.splitlines() == sessions.summary_lines(active)


def test_the_mcp_tools_text_is_what_render_gives(repo: Path) -> None:
    from mcp.client import Client

    from genesis_git.app.workspaces import Workspaces
    from genesis_git.mcp.server import build_server

    workspaces = Workspaces(limit=1)
    server, _ = build_server(workspaces)

    async def drive() -> dict[str, Any]:
        async with Client(server) as client:
            return {"search": await client.call_tool("search", {"query": "order", "k": 2}),
                    "status": await client.call_tool("session_status", {})}

    try:
        got = anyio.run(drive)
    finally:
        workspaces.close()
    data = got["search"].structured_content
    assert got["search"].content[0].text == search.summary(data)
    assert got["search"].content[0].text.startswith("2 results for 'order' (hybrid)")
    status = got["status"].structured_content["active"]
    assert got["status"].content[0].text == sessions.status_short(status)
