"""``genesis mcp``: a real server on real stdio, driven by the SDK's client and by a plain one."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from genesis_git.app.workspaces import Workspaces
from genesis_git.mcp.clientconfig import genesis_executable
from genesis_git.mcp.server import INSTRUCTIONS, build_server

from helpers import SAMPLE_FILES, commit_files, genesis_cmd, make_repo, write

TOOLS = {"search", "impact", "story_context", "story_list", "session_status", "session_start",
         "session_note", "design_search", "design_brief", "symbols", "check"}


def cli_json(repo: Path, *args: str) -> Any:
    proc = subprocess.run([*genesis_cmd(), *args, "--json"], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def server_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k.startswith(("GENESIS_", "GIT_", "COVERAGE", "COV_")) or k in (
                "HOME", "PATH", "XDG_CONFIG_HOME", "PYTHONPATH", "COLUMNS")}


class RawClient:
    """Newline-delimited JSON-RPC 2.0 over a subprocess's stdin and stdout, nothing else."""

    def __init__(self, cwd: Path):
        self.proc = subprocess.Popen([*genesis_cmd(), "mcp"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=server_env(), start_new_session=True)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stdout: list[bytes] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.stdout.append(line)
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   **({"params": params} if params is not None else {})})
        deadline = time.monotonic() + 120
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result


pytestmark = pytest.mark.shop(files=SAMPLE_FILES)


def test_a_plain_json_rpc_client_gets_the_cli_results(shop: Path, tmp_path: Path) -> None:
    client = RawClient(shop)
    try:
        init = client.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "plain", "version": "1"}})
        assert init["result"]["serverInfo"]["name"] == "genesis"
        assert "impact" in init["result"]["instructions"]
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = client.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in listed} == TOOLS
        for tool in listed:
            assert "repo" in tool["inputSchema"]["properties"], tool["name"]
            assert tool["description"]

        found = client.call("search", {"query": "order cancel", "k": 3})
        assert not found.get("isError"), found
        assert found["structuredContent"] == cli_json(shop, "search", "-k", "3", "order cancel")
        assert found["content"][0]["text"].startswith("3 results for 'order cancel'")

        files = client.call("search", {"query": "orders", "files": True, "type": ["CODE", "DB"],
                                       "path": ["src/**", "db/"]})
        assert files["structuredContent"] == cli_json(
            shop, "search", "--files", "--type", "CODE", "--type", "DB", "--path", "src/**",
            "--path", "db/", "orders")
        assert {r["path"] for r in files["structuredContent"]["results"]} <= {
            "src/shop/orders.py", "db/schema.sql"}

        impact = client.call("impact", {"requirement": "订单表新增字段 discount_code", "k": 4})
        assert impact["structuredContent"] == cli_json(
            shop, "impact", "-k", "4", "订单表新增字段 discount_code")
        assert impact["structuredContent"]["files"]
        assert "files:" in impact["content"][0]["text"]

        # an edit saved between two calls is seen by the second
        write(shop, "src/shop/refunds.py", "def issue_zanzibar_refund(order_id):\n    return 0\n")
        fresh = client.call("search", {"query": "zanzibar refund"})
        assert fresh["structuredContent"]["results"][0]["path"] == "src/shop/refunds.py"

        # a path that is not a repository is a tool error of one line; the server carries on
        plain = tmp_path / "plain"
        plain.mkdir()
        bad = client.call("search", {"query": "order", "repo": str(plain)})
        assert bad["isError"] is True
        text = bad["content"][0]["text"]
        assert "not a git repository" in text and "\n" not in text
        relative = client.call("search", {"query": "order", "repo": "shop"})
        assert relative["isError"] and "absolute path" in relative["content"][0]["text"]
        empty = client.call("impact", {"requirement": "   "})
        assert empty["isError"] and "empty" in empty["content"][0]["text"]
        invalid = client.call("search", {"query": "order", "k": 0})
        assert invalid["isError"]
        unknown = client.call("story_context", {"story_id": "STORY-404"})
        assert unknown["isError"] and "STORY-404" in unknown["content"][0]["text"]
        again = client.call("search", {"query": "order cancel", "k": 3})
        assert again["structuredContent"] == cli_json(shop, "search", "-k", "3", "order cancel")
        assert again["structuredContent"]["results"][0]["path"] == "src/shop/orders.py"
    finally:
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        code = client.proc.wait(timeout=60)
    # closing stdin ends the server cleanly, and nothing of its process group is left
    assert code == 0
    with pytest.raises(ProcessLookupError):
        os.killpg(client.proc.pid, 0)
    # nothing but protocol messages on stdout
    assert client.stdout
    for line in client.stdout:
        assert json.loads(line)["jsonrpc"] == "2.0"


def test_the_sdk_client_calls_every_tool(shop: Path) -> None:
    for cmd in (["design", "init"], ["design", "ingest", "rules"]):
        subprocess.run([*genesis_cmd(), *cmd], cwd=shop, check=True, capture_output=True)
    commit_files(shop, "STORY-7: cancel orders", {"src/shop/cancel.py": "def cancel():\n    pass\n"})
    subprocess.run([*genesis_cmd(), "story", "rebuild"], cwd=shop, check=True, capture_output=True)
    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=shop, env=server_env())

    async def drive() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params, read_timeout_seconds=120) as client:
            assert client.instructions == INSTRUCTIONS
            tools = (await client.list_tools()).tools
            assert {t.name for t in tools} == TOOLS
            calls = {
                "session_start": {"doc": "docs/req/orders.md"},
                "session_status": {},
                "session_note": {"text": "cancelled orders keep their rows", "role": "decision",
                                 "path": "src/shop/orders.py"},
                "search": {"query": "OrderController", "repo": str(shop / "src")},
                "impact": {"requirement": "cancel an order", "history": False, "graph": False},
                "story_list": {},
                "story_context": {"story_id": "STORY-7"},
                "design_search": {"query": "dark card spacing", "top": 3},
                "design_brief": {"query": "dark mode home cards"},
            }
            cli = {  # the same query through the command line, right after the tool call
                "search": ["search", "OrderController"],
                "impact": ["impact", "--no-history", "--no-graph", "cancel an order"],
                "story_list": ["story", "list"],
                "story_context": ["story", "context", "STORY-7"],
                "design_search": ["design", "search", "--top", "3", "dark card spacing"],
            }
            for name, args in calls.items():
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content)
                assert result.content and result.content[0].type == "text"
                out[name] = result.structured_content
                if name in cli:
                    assert out[name] == cli_json(shop, *cli[name]), name
        return out

    got = anyio.run(drive)
    assert got["session_start"]["session"] == got["session_status"]["active"]["id"]
    assert got["session_status"]["active"]["source_doc"] == "docs/req/orders.md"
    assert got["session_note"]["role"] == "decision"
    assert got["session_note"]["path"] == "src/shop/orders.py"
    assert got["search"]["results"][0]["path"] == "src/shop/orders.py"
    assert got["story_list"]["stories"][0]["story_id"] == "STORY-7"
    assert got["story_context"]["story"]["story_id"] == "STORY-7"
    assert got["session_status"]["active"]["unbound_artifacts"] == 0
    status = cli_json(shop, "session", "status")
    assert status["active"]["unbound_artifacts"] == 1, (  # what a failure needs to be read
        status, cli_json(shop, "session", "list", "--all"),
        cli_json(shop, "session", "artifacts", "--session", status["active"]["id"]))
    assert len(got["design_search"]["results"]) == 3
    assert got["design_brief"]["cards"]
    assert (shop / "tasks" / "design-brief.md").is_file()


def test_tools_in_process_render_and_fail_in_one_line(shop: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", {"notes.md": "# Billing\n\nInvoices are monthly.\n"})
    workspaces = Workspaces(limit=1)
    server, _ = build_server(workspaces)

    async def drive() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(server) as client:
            out["status"] = await client.call_tool("session_status", {})
            out["files"] = await client.call_tool("search", {"query": "orders", "files": True})
            out["other"] = await client.call_tool("search", {"query": "invoices",
                                                             "repo": str(other)})
            out["back"] = await client.call_tool("search", {"query": "orders", "k": 1})
            out["nothing"] = await client.call_tool("impact", {"requirement": "qwxzv"})
            out["stories"] = await client.call_tool("story_list", {})
            out["stopwords"] = await client.call_tool("search", {"query": "the of and " * 3000})
            out["role"] = await client.call_tool("session_note", {"text": "x", "role": "wish"})
            out["design"] = await client.call_tool("design_search", {"query": "card"})
        return out

    got = anyio.run(drive)
    assert got["status"].structured_content == {"active": None}
    assert got["status"].content[0].text.startswith("no active session")
    assert "lines" in got["files"].content[0].text
    assert got["other"].structured_content["results"][0]["path"] == "notes.md"
    assert got["back"].structured_content["results"][0]["path"]
    assert workspaces.roots() == [shop.resolve()]  # the limit of 1 closed the other
    assert "nothing in the index matches" in got["nothing"].content[0].text
    assert got["stories"].structured_content == {"stories": []}
    for name in ("stopwords", "role"):
        assert got[name].is_error and "\n" not in got[name].content[0].text
        assert len(got[name].content[0].text) < 300
    assert got["design"].structured_content["available"] is False
    assert "warning: design library unavailable" in got["design"].content[0].text
    # every call was answered, and only the two bad ones as errors
    assert [name for name, answer in got.items() if answer.is_error] == ["stopwords", "role"]


def test_a_config_change_reopens_the_repository(shop: Path) -> None:
    workspaces = Workspaces(limit=2)
    with workspaces.using(None) as first:
        pass
    with workspaces.using(str(shop)) as again:
        assert again is first
    write(shop, ".genesis.toml", "[search]\nk = 2\n")
    with workspaces.using(None) as second:
        assert second is not first and second.workspace.config.int("search.k") == 2
    workspaces.close()
    assert workspaces.roots() == []


def test_print_config_names_this_genesis() -> None:
    exe = genesis_executable()
    assert Path(exe).is_absolute()
    for client in ("claude", "cursor", "vscode"):
        proc = subprocess.run([*genesis_cmd(), "mcp", "--print-config", client, "--scope", "user"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert exe in proc.stdout  # the file itself; where it goes is said on stderr
    bad = subprocess.run([*genesis_cmd(), "mcp", "--print-config", "emacs"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2


def test_without_the_sdk_one_line_says_how_to_install_it(shop: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "mcp.py").write_text("raise ImportError('mcp is not installed here')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    proc = subprocess.run([*genesis_cmd(), "mcp"], capture_output=True, text=True, timeout=60,
                          env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 3
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("genesis: error: genesis mcp needs the MCP SDK, an optional extra "
                               "(install it with: ")
    assert "[mcp]'" in lines[0].split("; once ")[0]  # a command that works today
    assert lines[0].endswith("; once genesis-git is published: pip install 'genesis-git[mcp]')")
