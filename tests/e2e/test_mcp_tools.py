"""``genesis mcp``'s tools through the SDK's client: bounded answers with a cursor, JSON in
text, output schemas, descriptions with enums, honest annotations, the history's stories
read on first use, paths outside the repository refused, symbols and the grep mode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from genesis_git.app.workspaces import Workspaces
from genesis_git.mcp.server import build_server

from helpers import SAMPLE_FILES, genesis_cmd, git, write

MANY = {**SAMPLE_FILES, **{
    f"src/zoo/animal_{i:02d}.py": "".join(
        f"def feed_zebra_{i}_{j}(bucket):\n    return 'zebra_token {i} {j} " + "x" * 60 + "'\n"
        for j in range(12))
    for i in range(40)}}

pytestmark = pytest.mark.shop(files=SAMPLE_FILES)


def answer_bytes(result: Any) -> int:
    """What one answer carries: its text blocks and its structured content, as UTF-8."""
    texts = sum(len(c.text.encode()) for c in result.content)
    return texts + len(json.dumps(result.structured_content, ensure_ascii=False,
                                  separators=(",", ":")).encode())


def drive(calls: list[tuple[str, dict[str, Any]]], root: Path | None = None) -> list[Any]:
    server, _ = build_server(Workspaces(limit=2, default=root))

    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]
    return anyio.run(run)


def page_all(name: str, args: dict[str, Any], key: str) -> tuple[list[Any], list[Any]]:
    """Every page of one call, following next_cursor: (items in order, the answers)."""
    server, _ = build_server(Workspaces(limit=2))

    async def run() -> tuple[list[Any], list[Any]]:
        items: list[Any] = []
        answers: list[Any] = []
        cursor = None
        async with Client(server) as client:
            for _ in range(200):
                result = await client.call_tool(name, {**args, "cursor": cursor})
                assert not result.is_error, result.content
                answers.append(result)
                items += result.structured_content[key]
                cursor = result.structured_content.get("next_cursor")
                if not cursor:
                    break
        return items, answers
    return anyio.run(run)


def cli_json(root: Path, *args: str) -> Any:
    proc = subprocess.run([*genesis_cmd(), *args, "--json"], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.shop(files=MANY)
def test_a_long_answer_is_cut_within_the_limit_and_the_cursor_returns_everything_once(
        shop: Path) -> None:
    write(shop, ".genesis.toml", "[mcp]\nmax_answer_bytes = 8192\n")
    expected = cli_json(shop, "search", "-F", "zebra_token")["matches"]
    assert len(expected) == 480
    items, answers = page_all("search", {"query": "zebra_token", "match": "fixed"}, "matches")
    assert len(answers) > 5
    assert items == expected  # every line once, in the same order
    for result in answers:
        assert answer_bytes(result) <= 8192
        assert json.loads(result.content[-1].text) == result.structured_content
    first = answers[0].structured_content
    assert first["truncated"]["total"] == 480 and first["truncated"]["offset"] == 0
    assert "cursor=" in answers[0].content[0].text
    assert answers[-1].structured_content["next_cursor"] is None

    ranked, pages = page_all("search", {"query": "zebra bucket", "k": 300}, "results")
    whole = cli_json(shop, "search", "-k", "300", "zebra", "bucket")["results"]
    assert len(pages) > 1 and ranked == whole
    assert all(answer_bytes(r) <= 8192 for r in pages)

    write(shop, "src/zoo/animal_00.py", "# zebra_token moved\n")  # an edit before the cursor
    [edited] = drive([("search", {"query": "zebra_token", "match": "fixed",
                                  "cursor": answers[2].structured_content["next_cursor"]})])
    assert edited.is_error
    assert edited.content[0].text.startswith("cursor: the matches changed since")

    [note, wrong, stale] = drive([
        ("session_note", {"text": "a long analysis " + "é" * 300_000}),
        ("search", {"query": "zebra_token", "match": "regex", "cursor": first["next_cursor"]}),
        ("search", {"query": "zebra_token", "match": "fixed", "cursor": "not-a-cursor"})])
    assert not note.is_error and answer_bytes(note) <= 8192
    assert note.structured_content["truncated"]["strings_cut"] >= 1
    assert "[cut: " in json.dumps(note.structured_content, ensure_ascii=False)
    for bad in (wrong, stale):
        assert bad.is_error and bad.content[0].text.startswith("cursor: ")
        assert "\n" not in bad.content[0].text


def test_a_story_with_a_one_megabyte_note_answers_within_the_default_limit(shop: Path) -> None:
    subprocess.run([*genesis_cmd(), "hooks", "install"], cwd=shop, check=True,
                   capture_output=True)
    [noted] = drive([("session_note", {"text": "analysis " + "订单 order total " * 65_000,
                                       "role": "analysis"})])
    assert not noted.is_error and answer_bytes(noted) <= 65536
    write(shop, "src/shop/export.py", "def export():\n    return 1\n")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "STORY-40: export orders")  # the hook binds the note
    [context] = drive([("story_context", {"story_id": "STORY-40"})])
    assert not context.is_error, context.content
    assert answer_bytes(context) <= 65536
    data = context.structured_content
    assert data["story"]["story_id"] == "STORY-40"
    assert data["truncated"]["strings_cut"] >= 1 and data["next_cursor"] is None
    assert "[cut: " in json.dumps(data, ensure_ascii=False)


def test_tools_describe_themselves_with_enums_schemas_and_what_they_write(shop: Path) -> None:
    server, _ = build_server(Workspaces(limit=1))

    async def listed() -> tuple[list[Any], list[Any]]:
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
            results = [await client.call_tool(name, args) for name, args in (
                ("search", {"query": "order"}), ("impact", {"requirement": "cancel an order"}),
                ("story_list", {}), ("session_status", {}), ("design_search", {"query": "card"}),
                ("symbols", {"name": "OrderController"}))]
        return tools, results

    tools, results = anyio.run(listed)
    by_name = {t.name: t for t in tools}
    for tool in tools:
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.description and "\n    " not in tool.description, tool.name
        assert "BM25" not in tool.description
    props = {name: t.input_schema["properties"] for name, t in by_name.items()}

    def enum(schema: dict[str, Any]) -> list[str]:
        for option in [schema, *schema.get("anyOf", []), schema.get("items", {})]:
            if "enum" in option:
                return list(option["enum"])
            if "items" in option and "enum" in option["items"]:
                return list(option["items"]["enum"])
        raise AssertionError(f"no enum in {schema}")

    assert enum(props["session_note"]["role"]) == ["analysis", "doc_change", "note", "decision",
                                                   "risk", "test_model"]
    assert enum(props["story_list"]["status"]) == ["draft", "in_progress", "review", "done",
                                                   "archived"]
    assert enum(props["search"]["mode"]) == ["hybrid", "lexical", "vector"]
    assert enum(props["search"]["match"]) == ["ranked", "fixed", "regex"]
    assert "CODE" in enum(props["search"]["type"]["anyOf"][0])
    assert "source" in props["search"]["type"]["description"]
    assert "folder" in props["search"]["component"]["description"]
    assert "0 (changed recently)" in props["search"]["max_staleness"]["description"]
    for name in ("search", "impact", "symbols", "story_list", "story_context"):
        annotations = by_name[name].annotations
        assert annotations is not None and annotations.read_only_hint is False, name
        assert annotations.destructive_hint is False
        assert "store" in (by_name[name].description or ""), name
    for result in results:
        assert not result.is_error, result.content
        assert len(result.content) == 2
        assert json.loads(result.content[1].text) == result.structured_content


def test_story_tools_read_the_history_on_first_use(shop: Path, tmp_path: Path) -> None:
    no_hooks = tmp_path / "no-hooks"
    no_hooks.mkdir()
    write(shop, "src/shop/refund.py", "def refund():\n    return 1\n")
    git(shop, "add", "-A")
    git(shop, "-c", f"core.hooksPath={no_hooks}", "commit", "-q", "-m",
        "STORY-31: refunds for cancelled orders")
    assert cli_json(shop, "story", "list")["stories"] == []  # the store never read it
    [listed, context, unknown] = drive([
        ("story_list", {}), ("story_context", {"story_id": "STORY-31"}),
        ("story_context", {"story_id": "STORY-404"})])
    assert [s["story_id"] for s in listed.structured_content["stories"]] == ["STORY-31"]
    assert "history" not in listed.structured_content
    assert "src/shop/refund.py" in json.dumps(context.structured_content)
    text = unknown.content[0].text
    assert unknown.is_error and "STORY-404" in text
    assert "genesis story rebuild" not in text and "--" not in text


def test_a_story_call_during_the_read_says_so_and_a_later_one_has_the_stories(
        shop: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from genesis_git.mcp import tools_story

    no_hooks = tmp_path / "no-hooks"
    no_hooks.mkdir()
    git(shop, "-c", f"core.hooksPath={no_hooks}", "commit", "-q", "--allow-empty", "-m",
        "STORY-32: export orders")
    monkeypatch.setattr(tools_story, "WAIT_SECONDS", 0.0)  # answer before the read ends
    server, _ = build_server(Workspaces(limit=1))

    async def run() -> tuple[Any, Any]:
        async with Client(server) as client:
            first = await client.call_tool("story_list", {})
            monkeypatch.setattr(tools_story, "WAIT_SECONDS", 60.0)
            return first, await client.call_tool("story_list", {})

    first, later = anyio.run(run)
    assert first.structured_content["history"] == {"status": "reading"}
    assert "still reading the history" in first.content[0].text
    assert [s["story_id"] for s in later.structured_content["stories"]] == ["STORY-32"]
    assert "history" not in later.structured_content


def test_paths_outside_the_repository_are_refused_and_nothing_is_written(shop: Path) -> None:
    [escape, absolute, doc, brief, status] = drive([
        ("session_note", {"text": "look here", "path": "../../etc/passwd"}),
        ("session_note", {"text": "look here", "path": "/etc/passwd"}),
        ("session_start", {"doc": "../outside.md"}),
        ("design_brief", {"query": "dark mode home cards"}),
        ("session_status", {})])
    for bad, argument in ((escape, "path"), (absolute, "path"), (doc, "doc")):
        line = bad.content[0].text
        assert bad.is_error and line.startswith(f"{argument}: ") and "outside" in line, line
        assert "\n" not in line
    assert brief.is_error and "no brief written" in brief.content[0].text
    assert not (shop / "tasks").exists()
    active = status.structured_content["active"]
    assert active is None or active["unbound_artifacts"] == 0


def test_symbols_and_the_grep_mode_see_unsaved_edits(shop: Path) -> None:
    write(shop, "src/shop/refund.py", "from shop.orders import cancel_order\n\n\n"
                                      "def refund_order(order_id):\n"
                                      "    return cancel_order(order_id)\n")
    (shop / "README.md").unlink()
    [defined, refs, outline, grep, gone, none] = drive([
        ("symbols", {"name": "refund_order"}),
        ("symbols", {"name": "cancel_order", "refs": True}),
        ("symbols", {"outline": "src/shop/orders.py"}),
        ("search", {"query": r"cancel_\w+\(", "match": "regex"}),
        ("search", {"query": "An order service", "match": "fixed"}),
        ("symbols", {"name": "NoSuchThing"})])
    assert [d["location"] for d in defined.structured_content["definitions"]] == [
        "src/shop/refund.py:4"]
    assert [d["location"] for d in refs.structured_content["definitions"]] == [
        "src/shop/orders.py:8"]
    assert [r["location"] for r in refs.structured_content["references"]] == [
        "src/shop/refund.py:1", "src/shop/refund.py:5"]
    assert [(d["name"], d["kind"], d["line"]) for d in outline.structured_content[
        "definitions"]] == [("OrderController", "class", 1),
                            ("OrderController.create_order", "method", 4),
                            ("cancel_order", "function", 8)]
    matches = grep.structured_content["matches"]
    assert [m["location"] for m in matches] == ["src/shop/orders.py:8", "src/shop/refund.py:5"]
    assert matches[0]["definition"] is True
    assert gone.structured_content["matches"] == []  # the deleted README is not searched
    assert none.structured_content["definitions"] == []


def test_an_inherited_method_through_the_server(shop: Path) -> None:
    write(shop, "src/shop/express.py", "from shop.orders import OrderController\n\n\n"
                                       "class ExpressController(OrderController):\n    pass\n")
    [inherited, text] = drive([("symbols", {"name": "ExpressController.create_order"}),
                               ("search", {"query": "ExpressController.create_order", "k": 1})])
    assert [(d["location"], d["via"]) for d in inherited.structured_content["definitions"]] == [
        ("src/shop/orders.py:4", ["ExpressController", "OrderController"])]
    assert "(inherited by ExpressController)" in inherited.content[0].text
    first = text.structured_content["results"][0]
    assert (first["path"], first["symbol"]) == ("src/shop/orders.py", "OrderController"), first


def test_a_name_without_a_token_is_searched_in_the_files(shop: Path) -> None:
    write(shop, "src/shop/basket.py", "class Basket:\n    def has(self, item):\n"
                                      "        return item in self.items\n")
    write(shop, "src/shop/use.py", "from shop.basket import Basket\n\n\n"
                                   "def check(basket):\n    return basket.has(1)\n")
    write(shop, "src/shop/a_use.py", "def a_check(basket):\n    return basket.has(2)\n")
    [found, files, refused] = drive([("search", {"query": "has()"}),
                                     ("search", {"query": "has()", "files": True}),
                                     ("search", {"query": "the"})])
    assert not found.is_error, found.content
    results = found.structured_content["results"]
    assert results[0]["path"] == "src/shop/basket.py", results
    assert results[0]["score"] == 100.0 and results[-1]["score"] == 1.0  # a method's line, a use
    assert "src/shop/use.py" in {r["path"] for r in results}
    ranked = [f["path"] for f in files.structured_content["results"]]  # not by path: a_use.py
    assert ranked[0] == "src/shop/basket.py" and "src/shop/a_use.py" in ranked, ranked
    assert refused.is_error and "only stopwords" in refused.content[0].text


def test_the_symbol_tool_over_real_stdio(shop: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=shop)

    async def run() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await client.call_tool("symbols", {"name": "OrderController.create_order"})

    result = anyio.run(run)
    assert not result.is_error, result.content
    assert result.content[0].text.splitlines()[1] == (
        "src/shop/orders.py:4: method OrderController.create_order")
