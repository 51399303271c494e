"""``genesis mcp`` at the protocol's edge: a real server process, driven byte by byte by a
plain JSON-RPC client (with a deadline on every answer, so that a silent server fails the
test instead of hanging it) and by the SDK's client."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import ListRootsResult, Root

from genesis_git.index.indexer import PAUSE_VAR

from helpers import SAMPLE_FILES, genesis_cmd, make_repo

TOOLS = ("search, impact, symbols, story_context, story_list, session_status, session_start, "
         "session_note, design_search, design_brief, check")
ANSWER = 60.0  # seconds an answer may take on a busy machine; silence fails the test


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k.startswith(("GENESIS_", "GIT_", "COVERAGE", "COV_")) or k in (
               "HOME", "PATH", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "PYTHONPATH")}
    return {**env, **extra}


class Raw:
    """Bytes in, lines out: newline-delimited JSON-RPC to a ``genesis mcp`` subprocess."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None,
                 on_request: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 stderr: int = subprocess.PIPE, read_stderr: bool = True,
                 argv: list[str] | None = None):
        self.proc = subprocess.Popen(argv or [*genesis_cmd(), "mcp"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr,
                                     env=env or server_env(), start_new_session=True)
        self.messages: queue.Queue[Any] = queue.Queue()
        self.notes: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.on_request = on_request
        self.asked: list[dict[str, Any]] = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()
        if read_stderr and stderr == subprocess.PIPE:
            threading.Thread(target=lambda: self.proc.stderr and self.proc.stderr.read(),
                             daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw.append(line)
            message = json.loads(line)
            if isinstance(message, dict) and "method" in message and "id" in message:
                self.asked.append(message)  # the server asks the client (roots/list)
                if self.on_request is not None:
                    self.send({"jsonrpc": "2.0", "id": message["id"],
                               "result": self.on_request(message)})
                continue
            if isinstance(message, dict) and "method" in message:
                self.notes.append(message)
                continue
            self.messages.put(message)

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(json.dumps(message).encode() + b"\n")

    def next(self, timeout: float = ANSWER) -> Any:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s") from None

    def request(self, method: str, params: Any = None, *, timeout: float = ANSWER,
                meta: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        if meta is not None:
            params = {**(params or {}), "_meta": meta}
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   **({"params": params} if params is not None else {})})
        return self.wait(self.next_id, timeout)

    def wait(self, request_id: Any, timeout: float = ANSWER) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            if isinstance(message, dict) and message.get("id") == request_id:
                return message

    def initialize(self, version: str = "2025-06-18",
                   capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        init = self.request("initialize", {"protocolVersion": version,
                                           "capabilities": capabilities or {},
                                           "clientInfo": {"name": "raw", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return init

    def call(self, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments}, **kw)

    def close(self) -> int:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout=ANSWER)
        finally:
            self.kill()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=ANSWER)


def one_line_error(reply: dict[str, Any]) -> str:
    assert "result" in reply, reply
    result = reply["result"]
    assert result["isError"] is True, result
    text: str = result["content"][0]["text"]
    assert "\n" not in text and "pydantic" not in text and "http" not in text, text
    return text


pytestmark = pytest.mark.shop(files=SAMPLE_FILES)


# -- 1. every request gets an answer --------------------------------------------------------

@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05"])
def test_every_broken_request_gets_an_answer_and_notifications_none(
        shop: Path, version: str) -> None:
    raw = Raw(shop)
    try:
        before = raw.request("tools/call", {"name": "search", "arguments": {"query": "order"}})
        assert before["error"]["code"] == -32600
        assert "initialize" in before["error"]["message"]
        assert raw.request("ping") == {"jsonrpc": "2.0", "id": raw.next_id, "result": {}}
        init = raw.initialize(version)
        assert init["result"]["protocolVersion"] == version

        def sent(data: bytes) -> Any:
            raw.send_bytes(data + b"\n")
            return raw.next()

        string = sent(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"search"}')
        assert string["id"] == 2 and string["error"]["code"] == -32602
        assert "params" in string["error"]["message"]
        array = sent(b'{"jsonrpc":"2.0","id":"three","method":"tools/call","params":[1]}')
        assert array["id"] == "three" and array["error"]["code"] == -32602
        garbage = sent(b'{"jsonrpc":"2.0","id":4,"method":')
        assert garbage["id"] is None and garbage["error"]["code"] == -32700
        not_utf8 = sent(b'\xff\xfe{')
        assert not_utf8["id"] is None and not_utf8["error"]["code"] == -32700
        old = sent(b'{"jsonrpc":"1.0","id":5,"method":"ping"}')
        assert old["id"] == 5 and old["error"]["code"] == -32600 and "2.0" in \
            old["error"]["message"]
        object_id = sent(b'{"jsonrpc":"2.0","id":{"n":6},"method":"ping"}')
        assert object_id["id"] is None and object_id["error"]["code"] == -32600
        float_id = sent(b'{"jsonrpc":"2.0","id":6.5,"method":"ping"}')
        assert float_id["id"] is None and float_id["error"]["code"] == -32600
        no_method = sent(b'{"jsonrpc":"2.0","id":7}')
        assert no_method["id"] == 7 and no_method["error"]["code"] == -32600
        scalar = sent(b'"ping"')
        assert scalar["id"] is None and scalar["error"]["code"] == -32600
        no_params = sent(b'{"jsonrpc":"2.0","id":8,"method":"tools/call"}')
        assert no_params["id"] == 8 and no_params["error"]["code"] == -32602
        assert "params.name" in no_params["error"]["message"]
        batch = sent(b'[{"jsonrpc":"2.0","id":9,"method":"ping"},'
                     b'{"jsonrpc":"2.0","method":"notifications/initialized"},7]')
        assert [(e["id"], e["error"]["code"]) for e in batch] == [(9, -32600), (None, -32600)]
        assert "batch" in batch[0]["error"]["message"]
        empty = sent(b"[]")
        assert empty["id"] is None and empty["error"]["code"] == -32600
        # a notification, even a broken one, and an empty line get no answer: the next
        # message on the wire is the answer to the ping after them
        raw.send_bytes(b'\n   \n{"jsonrpc":"2.0","method":"notifications/cancelled",'
                       b'"params":"x"}\n{"jsonrpc":"1.0","method":"notifications/x"}\n')
        raw.send({"jsonrpc": "2.0", "id": 10, "method": "ping"})
        assert raw.next() == {"jsonrpc": "2.0", "id": 10, "result": {}}
        # and the server still works
        found = raw.call("search", {"query": "order cancel", "k": 2})
        assert found["result"]["structuredContent"]["results"][0]["path"] == "src/shop/orders.py"
    finally:
        code = raw.close()
    assert code == 0
    for line in raw.raw:  # stdout carried JSON-RPC only, one message a line
        message = json.loads(line)
        assert all(m["jsonrpc"] == "2.0" for m in (message if isinstance(message, list)
                                                    else [message]))


def test_the_sdk_transport_gets_an_error_for_requests_it_can_frame_but_mcp_refuses(
        shop: Path) -> None:
    from mcp.client.stdio import stdio_client
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCError, JSONRPCRequest

    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=shop, env=server_env())
    sent = [  # valid JSON-RPC, so the SDK's own transport sends them as they are
        {"name": "search", "arguments": {"query": "order"}},  # before initialize
        {"name": 5},  # after it: a tool name that is not a string
        {"name": "search", "arguments": "order"},  # arguments that are not an object
        {"name": "serch", "arguments": {}},  # an unknown tool
    ]

    async def drive() -> list[Any]:
        got: list[Any] = []
        async with stdio_client(params) as (read, write):
            async def answer() -> Any:
                with anyio.fail_after(ANSWER):
                    while True:
                        item = await read.receive()
                        if isinstance(item, SessionMessage) and \
                                not hasattr(item.message, "method"):
                            return item.message

            for n, call in enumerate(sent):
                if n == 1:
                    await write.send(SessionMessage(JSONRPCRequest(
                        jsonrpc="2.0", id=99, method="initialize", params={
                            "protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "sdk-transport", "version": "1"}})))
                    assert (await answer()).id == 99
                await write.send(SessionMessage(JSONRPCRequest(
                    jsonrpc="2.0", id=n, method="tools/call", params=call)))
                got.append(await answer())
        return got

    answers = anyio.run(drive)
    assert all(isinstance(a, JSONRPCError) for a in answers), answers
    assert [(a.id, a.error.code) for a in answers] == [
        (0, -32600), (1, -32602), (2, -32602), (3, -32602)]
    assert "initialize" in answers[0].error.message
    assert "params.name" in answers[1].error.message
    assert "arguments" in answers[2].error.message
    assert "unknown tool 'serch'" in answers[3].error.message


def test_an_ascii_locale_changes_nothing_on_the_wire(shop: Path) -> None:
    raw = Raw(shop, env=server_env(LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii"))
    try:
        raw.initialize()
        found = raw.call("search", {"query": "订单 discount_code", "k": 1})
        assert found["result"]["structuredContent"]["results"][0]["path"] == \
            "docs/req/orders.md"
        raw.send_bytes('{"jsonrpc":"2.0","id":"订单","method":"tools/call","params":"字段"}\n'
                       .encode())
        refused = raw.next()
        assert refused["id"] == "订单" and refused["error"]["code"] == -32602
    finally:
        assert raw.close() == 0
    assert any("订单".encode() in line for line in raw.raw)  # UTF-8, whatever the locale


# -- 3 and 4: one line naming the argument, the tool, what to do ----------------------------

def test_bad_arguments_unknown_tools_and_repos_are_one_line(shop: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    raw = Raw(shop)
    try:
        raw.initialize()
        assert one_line_error(raw.call("search", {"query": "x", "k": 0})) == \
            "search: argument k: input should be greater than or equal to 1 (got 0)"
        assert one_line_error(raw.call("search", {"query": "x", "k": "many"})).startswith(
            "search: argument k: input should be a valid integer")
        assert one_line_error(raw.call("search", {})) == "search: argument query is required"
        typo = one_line_error(raw.call("search", {"querry": "x"}))
        assert typo.startswith("search: unknown argument 'querry' (the arguments: ")
        assert "query" in typo
        assert one_line_error(raw.call("impact", {"requirement": "x", "k": [1]})).startswith(
            "impact: argument k: ")
        a_file = one_line_error(raw.call("search", {"query": "x",
                                                    "repo": str(shop / "README.md")}))
        assert a_file.startswith(f"repo {shop / 'README.md'}: a file, not a folder")
        assert "internal error" not in a_file and "Traceback" not in a_file
        missing = one_line_error(raw.call("search", {"query": "x", "repo": str(tmp_path / "no")}))
        assert missing == f"repo {tmp_path / 'no'}: no such folder"
        not_git = one_line_error(raw.call("search", {"query": "x", "repo": str(plain)}))
        assert not_git.startswith(f"repo {plain}: not a git repository")
        unknown = raw.call("serch", {"query": "x"})
        assert unknown["error"]["code"] == -32602
        assert unknown["error"]["message"] == f"unknown tool 'serch' (the tools: {TOOLS})"
        fine = raw.call("search", {"query": "order", "repo": str(shop / "src")})
        assert not fine["result"]["isError"]
    finally:
        assert raw.close() == 0


def test_the_sdk_client_sees_the_same_one_line_errors(shop: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=shop, env=server_env())

    async def drive() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params, read_timeout_seconds=ANSWER) as client:
            out["k"] = await client.call_tool("search", {"query": "x", "k": 0})
            out["file"] = await client.call_tool("search", {"query": "x",
                                                            "repo": str(shop / "README.md")})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("serch", {"query": "x"})
            out["unknown"] = unknown.value
            out["fine"] = await client.call_tool("search", {"query": "order cancel"})
        return out

    got = anyio.run(drive)
    assert got["k"].is_error
    assert got["k"].content[0].text == \
        "search: argument k: input should be greater than or equal to 1 (got 0)"
    assert got["file"].is_error and "a file, not a folder" in got["file"].content[0].text
    assert got["unknown"].error.code == -32602
    assert "the tools: search, impact" in got["unknown"].error.message
    assert got["fine"].structured_content["results"][0]["path"] == "src/shop/orders.py"


# -- 2. a client that never reads stderr ----------------------------------------------------

def test_a_client_that_never_reads_stderr_still_gets_answers(shop: Path, tmp_path: Path) -> None:
    log = tmp_path / "cache"
    raw = Raw(shop, env=server_env(XDG_CACHE_HOME=str(log)), read_stderr=False)
    try:
        raw.initialize()
        deadline = time.monotonic() + 600
        for n in range(240):
            kind = n % 4
            if kind == 0:
                reply = raw.call("search", {"query": "x", "k": 0})
                assert reply["result"]["isError"]
            elif kind == 1:
                reply = raw.call("story_context", {"story_id": f"STORY-{n}"})
                assert reply["result"]["isError"]
            elif kind == 2:
                raw.send_bytes(b"{broken\n")
                assert raw.next()["error"]["code"] == -32700
            else:
                reply = raw.call("nope", {})
                assert reply["error"]["code"] == -32602
            assert time.monotonic() < deadline
        good = raw.call("search", {"query": "order cancel", "k": 1}, timeout=30)
        assert good["result"]["structuredContent"]["results"][0]["path"] == "src/shop/orders.py"
    finally:
        raw.kill()
    assert raw.proc.stderr is not None
    assert raw.proc.stderr.read() == b""  # nothing was written to stderr at all


# -- 9. started outside a repository --------------------------------------------------------

def test_outside_a_repository_the_client_roots_are_asked_else_repo_is_named(
        shop: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    roots = {"roots": [{"uri": outside.as_uri(), "name": "notes"},
                       {"uri": (shop / "src").as_uri(), "name": "shop"}]}
    asking = Raw(outside, on_request=lambda m: roots if m["method"] == "roots/list" else {})
    silent = Raw(outside)
    try:
        asking.initialize(capabilities={"roots": {"listChanged": True}})
        found = asking.call("search", {"query": "order cancel", "k": 1})
        assert found["result"]["structuredContent"]["results"][0]["path"] == "src/shop/orders.py"
        assert [m["method"] for m in asking.asked] == ["roots/list"]

        silent.initialize()
        text = one_line_error(silent.call("search", {"query": "order"}))
        assert text.startswith(f"the server's working directory ({outside}) is not in a git "
                               "repository, and the client offers no workspace roots: "
                               "pass repo=<absolute path of the repository>")
        assert silent.asked == []
        given = silent.call("search", {"query": "order cancel", "repo": str(shop)})
        assert not given["result"]["isError"]
    finally:
        asking.close()
        silent.close()


def test_the_sdk_client_offers_its_roots(shop: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=outside, env=server_env())
    asked: list[int] = []

    async def list_roots(context: Any) -> ListRootsResult:
        asked.append(1)
        return ListRootsResult(roots=[Root(uri=shop.as_uri(), name="shop")])  # type: ignore[arg-type]

    async def drive() -> Any:
        # roots/list is a request of the server to the client: the handshake era's (the
        # per-request envelope of 2026-07-28 has no way back to the client on stdio)
        async with Client(params, read_timeout_seconds=ANSWER, mode="legacy",
                          list_roots_callback=list_roots) as client:
            return await client.call_tool("search", {"query": "order cancel", "k": 1})

    found = anyio.run(drive)
    assert not found.is_error, found.content
    assert found.structured_content["results"][0]["path"] == "src/shop/orders.py"
    assert asked


# -- 11. the first index of a large repository holds that repository only --------------------

def large_repository(path: Path, files: int = 200) -> Path:
    make_repo(path, {f"pkg/module_{n:03}.py": f"def handler_{n}(request):\n"
                                               f"    return 'reply {n} of the large one'\n"
                     for n in range(files)})
    return path


def test_the_first_index_holds_its_repository_only_and_reports_progress(
        shop: Path, tmp_path: Path) -> None:
    large = large_repository(tmp_path / "large")
    subprocess.run([*genesis_cmd(), "search", "order"], cwd=shop, check=True,
                   capture_output=True, timeout=120, env=server_env())  # the small one is warm
    paused = tmp_path / "paused"
    raw = Raw(shop, env=server_env(**{PAUSE_VAR: str(paused)}))
    try:
        raw.initialize()
        raw.next_id += 1
        slow_id = raw.next_id
        raw.send({"jsonrpc": "2.0", "id": slow_id, "method": "tools/call",
                  "params": {"name": "search", "_meta": {"progressToken": "first-index"},
                             "arguments": {"query": "handler reply", "repo": str(large)}}})
        deadline = time.monotonic() + ANSWER
        while not paused.exists():  # the large one's first index is under way, and waits
            assert time.monotonic() < deadline, "the first index never started"
            time.sleep(0.05)
        start = time.monotonic()
        other = raw.call("search", {"query": "order cancel", "k": 1}, timeout=30)
        assert other["result"]["structuredContent"]["results"][0]["path"] == \
            "src/shop/orders.py"
        assert time.monotonic() - start < 30
        assert raw.request("ping")["result"] == {}
        progress = [n["params"] for n in raw.notes if n["method"] == "notifications/progress"]
        assert progress and all(p["progressToken"] == "first-index" for p in progress)
        assert progress[0]["message"].startswith("indexing") and progress[0]["total"] >= 200
        assert raw.messages.empty()  # the large one has not answered yet
    finally:
        raw.kill()


def test_the_sdk_client_gets_progress_while_another_repository_answers(
        shop: Path, tmp_path: Path) -> None:
    large = large_repository(tmp_path / "large")
    subprocess.run([*genesis_cmd(), "search", "order"], cwd=shop, check=True,
                   capture_output=True, timeout=120, env=server_env())
    paused = tmp_path / "paused"
    params = StdioServerParameters(command=sys.executable, args=["-m", "genesis_git", "mcp"],
                                   cwd=shop, env=server_env(**{PAUSE_VAR: str(paused)}))
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async def drive() -> Any:
        async with Client(params, read_timeout_seconds=ANSWER) as client:
            async with anyio.create_task_group() as tg:
                async def slow() -> None:
                    await client.call_tool("search", {"query": "handler", "repo": str(large)},
                                           progress_callback=on_progress)
                tg.start_soon(slow)
                with anyio.fail_after(ANSWER):
                    while not paused.exists():
                        await anyio.sleep(0.05)
                with anyio.fail_after(30):
                    other = await client.call_tool("search", {"query": "order cancel", "k": 1})
                tg.cancel_scope.cancel()
            return other

    other = anyio.run(drive)
    assert other.structured_content["results"][0]["path"] == "src/shop/orders.py"
    assert seen and seen[0][2] is not None and seen[0][2].startswith("indexing")


# -- 13. --print-config: the file on stdout, where it goes on stderr -------------------------

CLIENTS = ["claude", "claude-desktop", "codex", "cursor", "vscode", "generic"]


def printed(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*genesis_cmd(), "mcp", "--print-config", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60, env=server_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr and all(line.startswith("# ") for line in proc.stderr.splitlines())
    return proc


def server_of(client: str, text: str) -> tuple[str, list[str]]:
    """The command and arguments a client reads from its configuration file."""
    if client == "codex":
        tomllib = pytest.importorskip("tomllib")
        entry = tomllib.loads(text)["mcp_servers"]["genesis"]
    else:
        body = json.loads(text)
        entry = body["servers" if client == "vscode" else "mcpServers"]["genesis"]
    assert set(entry) <= {"command", "args", "type"}
    return entry["command"], entry["args"]


@pytest.mark.parametrize("client", CLIENTS)
def test_each_printed_configuration_is_a_valid_file_that_starts_the_server(
        shop: Path, tmp_path: Path, client: str) -> None:
    from genesis_git.mcp.clientconfig import genesis_executable

    exe = genesis_executable()
    scopes = ["user"] if client == "claude-desktop" else ["project", "user"]
    for scope in scopes:
        proc = printed(shop, client, "--scope", scope)
        target = tmp_path / f"{client}-{scope}.conf"
        target.write_text(proc.stdout)  # what `> file` gives
        command, args = server_of(client, target.read_text())
        assert command == ("genesis" if scope == "project" else exe)
        assert exe not in proc.stdout or scope == "user"  # a shared file names no one's venv
        argv = [command if scope == "user" else str(Path(exe)),
                *[str(shop) if a == "${workspaceFolder}" else a for a in args]]
        cwd = tmp_path if client == "claude-desktop" else shop  # Desktop starts outside
        raw = Raw(cwd, argv=argv)
        try:
            raw.initialize()
            found = raw.call("search", {"query": "order cancel", "k": 1})
            assert found["result"]["structuredContent"]["results"][0]["path"] == \
                "src/shop/orders.py"
        finally:
            assert raw.close() == 0
    if client == "claude-desktop":
        assert server_of(client, printed(shop, client).stdout)[1] == ["-C", str(shop), "mcp"]
        outside = printed(tmp_path, client)
        assert server_of(client, outside.stdout)[1] == ["mcp"]
        assert "repo" in outside.stderr


def test_print_config_says_where_each_file_goes_and_refuses_what_cannot_be(shop: Path) -> None:
    claude = printed(shop, "claude")
    assert ".mcp.json" in claude.stderr and "claude mcp add --scope user genesis" in claude.stderr
    codex = printed(shop, "codex", "--scope", "user")
    assert "~/.codex/config.toml" in codex.stderr and "codex mcp add genesis --" in codex.stderr
    assert codex.stdout.startswith("[mcp_servers.genesis]\n")
    assert ".codex/config.toml" in printed(shop, "codex").stderr
    assert ".cursor/mcp.json" in printed(shop, "cursor").stderr
    assert "~/.cursor/mcp.json" in printed(shop, "cursor", "--scope", "user").stderr
    for args in (["--print-config", "claude-desktop", "--scope", "project"],
                 ["--scope", "user"], ["--print-config", "emacs"]):
        bad = subprocess.run([*genesis_cmd(), "mcp", *args], cwd=shop, capture_output=True,
                             text=True, timeout=60, env=server_env(), stdin=subprocess.DEVNULL)
        assert bad.returncode == 2, args
        assert bad.stdout == ""
