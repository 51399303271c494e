"""The server class of ``genesis mcp``: the SDK's :class:`MCPServer`, with the edge of a tool
call made clear.

* an unknown tool is a JSON-RPC error ``-32602`` that lists the tools;
* bad arguments are a tool error of one line that names the argument (not pydantic's
  dump, with its URLs), and an unknown argument is one too (a typo is not silently dropped);
* while a tool runs, :func:`current` gives its :class:`Call`: the request's progress
  token (``_meta.progressToken``) gets ``notifications/progress`` of long work, and the
  client's workspace roots (``roots/list``) can be asked for;
* stdio is served by :mod:`genesis_git.mcp.transport`, which answers every request.
"""

from __future__ import annotations

import contextvars
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
import anyio.from_thread
import anyio.lowlevel
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from genesis_git.mcp.screen import INVALID_PARAMS
from genesis_git.render.lines import one_line

ROOTS_TIMEOUT = 10.0  # seconds a client has to answer roots/list
PROGRESS_EVERY = 0.25  # seconds between two progress notifications of one call


@dataclass
class Call:
    """One tool call, seen from the worker thread that runs it."""

    context: Any  # the SDK's Context of the request
    token: Any  # the event loop's token: the worker thread's way back into the loop
    tool: str
    _sent: float = 0.0
    _offset: int = 0
    _phase: tuple[str, int] = ("", 0)
    _last: float = -1.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _session(self) -> Any:
        try:
            return self.context.request_context.session
        except Exception:  # noqa: BLE001 - a call outside a request (a test's in-process call)
            return None

    def wants_progress(self) -> bool:
        try:
            meta = self.context.request_context.meta
        except Exception:  # noqa: BLE001
            return False
        return bool(meta) and meta.get("progress_token", meta.get("progressToken")) is not None

    def progress(self, what: str, done: int, total: int | None) -> None:
        """Report ``what`` (``done`` of ``total``); the count only ever grows, across phases."""
        with self._lock:
            if what != self._phase[0]:
                self._offset += self._phase[1]
                self._phase = (what, 0)
            self._phase = (what, max(self._phase[1], total or done))
            value = float(self._offset + done)
            now = time.monotonic()
            if not what or value <= self._last or now - self._sent < PROGRESS_EVERY:
                return
            self._last, self._sent = value, now
        whole = float(self._offset + total) if total else None
        message = f"{what} {done:,}/{total:,}" if total else what
        try:
            anyio.from_thread.run(self.context.report_progress, value, whole, message,
                                  token=self.token)
        except Exception:  # noqa: BLE001 - progress must never fail the call
            pass

    def roots(self) -> list[Path] | None:
        """The client's workspace roots (local folders), or ``None`` when it offers none."""
        session = self._session()
        capabilities = getattr(session, "client_capabilities", None)
        if session is None or getattr(capabilities, "roots", None) is None:
            return None

        async def ask() -> Any:
            with anyio.fail_after(ROOTS_TIMEOUT):
                return await session.list_roots()

        try:
            answer = anyio.from_thread.run(ask, token=self.token)
        except Exception:  # noqa: BLE001 - no answer, a refusal: as if none were offered
            return None
        return [path for root in answer.roots if (path := file_path(str(root.uri)))]


def file_path(uri: str) -> Path | None:
    parts = urlparse(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parts.path))


_current: contextvars.ContextVar[Call | None] = contextvars.ContextVar("genesis_call",
                                                                      default=None)


def current() -> Call | None:
    """The tool call this thread runs (the worker thread inherits the request's context)."""
    return _current.get()


class GenesisServer(MCPServer[Any]):
    """:class:`MCPServer` with the clear edge described above."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            names = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise MCPError(INVALID_PARAMS, f"unknown tool {name!r} (the tools: {names})")
        refused = argument_error(tool, arguments)
        if refused is not None:
            return CallToolResult(content=[TextContent(type="text", text=refused)],
                                  is_error=True)
        reset = _current.set(Call(context, anyio.lowlevel.current_token(), name))
        try:
            return await super().call_tool(name, arguments, context)
        finally:
            _current.reset(reset)

    async def run_stdio_async(self) -> None:
        from genesis_git.mcp.transport import serve

        async def run(read_stream: Any, write_stream: Any) -> None:
            low = self._lowlevel_server
            await low.run(read_stream, write_stream, low.create_initialization_options())

        with self.claimed() as (wire_in, wire_out):
            await serve(run, wire_in, wire_out)

    def claimed(self) -> Any:
        from genesis_git.mcp.transport import claimed_stdio

        return claimed_stdio(self.log_file)

    log_file: str = ""


def argument_error(tool: Any, arguments: dict[str, Any]) -> str | None:
    """One line naming the argument that ``arguments`` gets wrong, or ``None``."""
    from pydantic import ValidationError

    model = tool.fn_metadata.arg_model
    known = {f.alias or n for n, f in model.model_fields.items()}
    unknown = sorted(set(arguments) - known)
    if unknown:
        return one_line(f"{tool.name}: unknown argument {unknown[0]!r} "
                        f"(the arguments: {', '.join(sorted(known))})")
    try:
        model.model_validate(tool.fn_metadata.pre_parse_json(arguments))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
        if first.get("type") == "missing":
            return one_line(f"{tool.name}: argument {where} is required")
        got = first.get("input")
        shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
        text = str(first.get("msg", "is not valid"))
        return one_line(f"{tool.name}: argument {where}: {text[:1].lower()}{text[1:]} "
                        f"(got {shown})")
    return None
