"""`genesis search` from the command line: shapes, freshness, messages and exit codes."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app

from helpers import ROOT, genesis_cmd, git, read_pty, write

runner = CliRunner()

FILES = {
    "docs/req/orders.md": "# 订单需求\n\n## 新增字段\n\n订单表新增字段 discount_code。\n",
    "db/schema.sql": "CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n  total NUMERIC\n);\n",
    "src/shop/orders.py": ("class OrderController:\n    \"\"\"Handles order requests.\"\"\"\n\n"
                           "    def create_order(self, items):\n        return items\n"),
    "README.md": "# Shop\n\nAn order service.\n",
}


pytestmark = pytest.mark.shop(files=FILES)


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["search", *args])


def test_no_session_yet_starts_one_and_says_so(shop: Path) -> None:
    res = invoke("OrderController")
    assert res.exit_code == 0, res.output
    assert re.fullmatch(r"genesis: no session yet: started s-[0-9-]+-[0-9a-f]{4} "
                        r"\(4 files indexed\)\n", res.stderr)
    first = res.stdout.splitlines()[0]
    assert first.startswith("src/shop/orders.py:1-")
    fields = first.split("\t")
    assert fields[2:4] == ["CODE", "OrderController"]
    assert fields[4] == "class OrderController:"
    res = invoke("OrderController")
    assert res.exit_code == 0 and res.stderr == ""


def test_plain_output_one_line_per_hit_with_explain(shop: Path) -> None:
    res = invoke("订单表新增字段", "--explain", "-k", "2")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split("\t")[0] == "docs/req/orders.md:3-5"
    assert lines[0].split("\t")[2:4] == ["REQ", "订单需求 > 新增字段"]
    assert lines[1] == "    matched: 订单, 单表, 表新, 新增, 增字, 字段, order"
    assert re.fullmatch(r"    lexical \d+\.\d{3} \(rank 1\) = bm25 \d+\.\d{3} \[增字 1\.70, 字段 "
                        r"1\.70, 新增 1\.70, .*\] \+ path \d\.\d{3} \[order\] \+ file \d\.\d{3}",
                        lines[2])
    assert re.fullmatch(r"    path    \d\.\d{3} \(rank \d\)", lines[3])
    assert lines[4].startswith("    vector  ") and lines[4].endswith("(rank 1)")
    assert re.fullmatch(r"    rrf     1/\(60\+1\) \+ 1/\(60\+\d\) \+ 1/\(60\+1\) = 0\.0\d{5}",
                        lines[5])


def test_json_schema_chunk_level(shop: Path) -> None:
    res = invoke("order table", "--json", "-k", "3")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data) == ["schema", "query", "mode", "level", "session", "terms", "warnings",
                          "results"]
    assert data["schema"] == 1 and data["level"] == "chunk" and data["mode"] == "hybrid"
    assert data["query"] == "order table"
    assert data["terms"][:2] == [{"term": "order", "weight": 1.0, "origin": "query"},
                                 {"term": "table", "weight": 1.0, "origin": "query"}]
    assert len(data["results"]) == 3
    hit = data["results"][0]
    assert list(hit) == ["path", "start_line", "end_line", "section", "symbol", "kind", "type",
                         "component", "owner", "staleness", "score", "matched_terms",
                         "breakdown", "chunk_id", "text"]
    assert "db/schema.sql" in [r["path"] for r in data["results"]]
    assert set(hit["breakdown"]) == {"bm25", "vector", "rrf", "boosts", "lexical_rank",
                                     "path_rank", "vector_rank", "terms", "path_terms"}
    assert set(hit["breakdown"]["boosts"]) == {"path", "file"}


def test_json_schema_file_level(shop: Path) -> None:
    res = invoke("order", "--files", "--json", "-k", "2")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["level"] == "file"
    assert len(data["results"]) == 2
    for f in data["results"]:
        assert list(f) == ["path", "score", "type", "component", "owner", "chunks"]
        assert f["score"] > 0  # the file's fused rank (search's and impact's), not a chunk's
        assert all("path" not in c for c in f["chunks"])
    assert [f["score"] for f in data["results"]] == sorted(
        (f["score"] for f in data["results"]), reverse=True)


def test_files_plain_output(shop: Path) -> None:
    res = invoke("order", "--files", "--explain")
    assert res.exit_code == 0
    heads = [line for line in res.stdout.splitlines() if not line.startswith("    ")]
    assert len(heads) == 4
    assert {h.split("\t")[0] for h in heads} == set(FILES)
    assert all(re.fullmatch(r"\S+\t\d\.\d{6}\t[A-Z]+\tlines \d+-\d+(, \d+-\d+)*", h) for h in heads)
    assert "    matched: order" in res.stdout


def test_markdown_context_block(shop: Path) -> None:
    res = invoke("OrderController create_order", "--markdown", "-k", "1")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("# Context for: OrderController create_order\n\n"
                                 "1 excerpts from 1 files of the working tree, best first "
                                 "(hybrid search).\n\n## src/shop/orders.py:1-5: OrderController"
                                 " (CODE)\n\n```python\nclass OrderController:\n")
    assert res.stdout.endswith("        return items\n```\n")
    res = invoke("order", "--markdown", "--files", "-k", "1")
    assert "\n## " in res.stdout and "\n### lines " in res.stdout


def test_markdown_without_results(shop: Path) -> None:
    res = invoke("zebra", "--markdown")
    assert res.exit_code == 1  # nothing found: grep's and rg's 1
    assert res.stdout.endswith("_no results: no chunk matches the query terms_\n")
    assert "genesis: no results: no chunk matches the query terms" in res.stderr


def test_freshness_and_no_refresh(shop: Path) -> None:
    assert invoke("order").exit_code == 0
    write(shop, "notes.md", "# Pelican\n\npelican sighting\n")
    res = invoke("pelican", "--no-refresh")
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr == "genesis: no results: no chunk matches the query terms\n"
    res = invoke("pelican")
    assert res.stdout.startswith("notes.md:1-3\t")


def test_filters_on_the_command_line(shop: Path) -> None:
    res = invoke("order", "--type", "db", "--type", "REQ", "--json", "-k", "20")
    assert {r["path"] for r in json.loads(res.stdout)["results"]} == {"db/schema.sql",
                                                                      "docs/req/orders.md"}
    res = invoke("order", "--path", "src/**", "--json")
    assert {r["path"] for r in json.loads(res.stdout)["results"]} == {"src/shop/orders.py"}
    res = invoke("order", "--component", "shop", "--json")
    assert {r["path"] for r in json.loads(res.stdout)["results"]} == {"src/shop/orders.py"}
    res = invoke("order", "--max-staleness", "0.5", "--json")
    assert len({r["path"] for r in json.loads(res.stdout)["results"]}) == 4
    res = invoke("order", "--owner", "nobody", "--json")
    assert json.loads(res.stdout)["warnings"] == ["no results: no file passes the filters"]
    res = invoke("order", "--mode", "lexical", "--json")
    assert json.loads(res.stdout)["mode"] == "lexical"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["", "--json"], 2, 'genesis: error: empty query (say what to look for, e.g. genesis search '
                        '"order table")\n'),
    (["the of and"], 2, "genesis: error: the query 'the of and' has only stopwords: nothing to "
                        "search for (add a word that names what you are looking for)\n"),
    (["order", "--type", "FOO"], 2, "genesis: error: unknown --type 'FOO' (valid types: REQ, ARCH,"
                                    " API, DB, UI, CODE, OTHER)\n"),
    (["order", "--mode", "fuzzy"], 2, "genesis: error: unknown mode 'fuzzy' (valid modes: hybrid,"
                                      " lexical, vector)\n"),
    (["order", "--json", "--markdown"], 2, "genesis: error: --json and --markdown cannot be used "
                                           "together\n"),
    (["order", "-k", "0"], 2, "genesis: error: -k must be at least 1 (got 0)\n"),
    (["order", "--max-staleness", "3"], 2, "genesis: error: --max-staleness must be between 0 and"
                                           " 1 (got 3)\n"),
])
def test_bad_input_messages(shop: Path, args: list[str], code: int, message: str) -> None:
    res = invoke(*args)
    assert res.exit_code == code
    assert res.stderr == message
    assert res.stdout == ""


def test_bad_input_starts_no_session(shop: Path) -> None:
    invoke("order", "--type", "FOO")
    res = runner.invoke(app, ["session", "status", "--json"])
    assert json.loads(res.stdout) == {"active": None}


def test_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke("order")
    assert res.exit_code == 3
    assert res.stderr.startswith(f"genesis: error: {tmp_path}: not a git repository")


def test_config_defaults_for_k_and_mode(shop: Path) -> None:
    write(shop, ".genesis.toml", '[search]\nk = 1\nmode = "vector"\n')
    data = json.loads(invoke("order", "--json").stdout)
    assert data["mode"] == "vector" and len(data["results"]) == 1


def test_real_subprocess_and_grep_lines_on_a_tty(shop: Path) -> None:
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm", "PYTHONPATH": str(ROOT),
           "GENESIS_PAGER": "cat"}
    proc = subprocess.run([*genesis_cmd(), "search", "order", "--json"], cwd=shop, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"]
    master, slave = pty.openpty()
    proc2 = subprocess.Popen([*genesis_cmd(), "search", "订单 discount", "--explain"], cwd=shop,
                             env=env, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    out = read_pty(master).decode("utf-8", "replace")
    assert proc2.wait(timeout=60) == 0
    assert proc2.stderr is not None
    proc2.stderr.close()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out).replace("\r\n", "\n")
    # one grep-like line per result, the breakdown indented under it
    assert plain.splitlines()[0].startswith("docs/req/orders.md:5: 订单表新增字段 discount_code")
    assert "\n    lines 3-5, in 订单需求 > 新增字段\n" in plain
    assert "\x1b[1;31m" in out  # matched terms highlighted
    assert "matched: 订单" in plain


def test_help_lists_every_option() -> None:
    res = runner.invoke(app, ["search", "--help"])
    assert res.exit_code == 0
    for opt in ("--top", "--mode", "--type", "--path", "--component", "--owner",
                "--max-staleness", "--files", "--explain", "--json", "--markdown", "--no-refresh"):
        assert opt in res.stdout


def test_search_sees_a_second_commit(shop: Path) -> None:
    invoke("order")
    write(shop, "src/pay.py", "def refund_payment():\n    pass\n")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "pay")
    res = invoke("refund")
    assert res.stdout.startswith("src/pay.py:1-2\t")


def test_files_of_a_longer_answer_begin_with_the_shorter_one(shop: Path) -> None:
    def paths(k: int) -> list[str]:
        res = invoke("--files", "--json", "-k", str(k), "order table discount_code total")
        assert res.exit_code == 0, res.output
        return [f["path"] for f in json.loads(res.stdout)["results"]]

    short, long = paths(2), paths(4)
    assert len(short) == 2 and len(long) == 4
    assert long[:2] == short
