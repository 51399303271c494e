"""The stdio transport of ``genesis mcp``: newline-delimited JSON-RPC on stdin and stdout.

It replaces the SDK's stdio transport for three reasons:

* every request gets an answer, even one the SDK would drop (:mod:`genesis_git.mcp.screen`);
* nothing the server does can write into the protocol: while it serves, descriptor 0 reads
  the null device and descriptor 1 goes where descriptor 2 goes, and the wire is served from
  private duplicates;
* nothing the server does can block on stderr: a client that never reads the server's stderr
  fills that pipe after 64 KiB, and a server thread writing one more line waits for ever.
  While serving, descriptor 2 points at the null device and ``sys.stderr`` appends to the
  server's log file (rotated like the rest of it), where the warnings and tracebacks go too.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from genesis_git.mcp.screen import INVALID_REQUEST, Screen, error, usable_id

Reply = dict[str, Any] | list[dict[str, Any]]


class StderrToLog(io.TextIOBase):
    """A ``sys.stderr`` that appends whole lines to a log file and never blocks."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = path
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            whole, self._pending = self._pending.rsplit("\n", 1)
            self._append(whole + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            text, self._pending = self._pending, ""
            self._append(text + "\n")

    def _append(self, text: str) -> None:
        from genesis_git.kernel.log import LOG_ROTATE_BYTES
        from genesis_git.kernel.logfile import append_log

        append_log([self.path], text, rotate_at=LOG_ROTATE_BYTES)


@contextmanager
def claimed_stdio(log: str | os.PathLike[str]) -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The wire (stdin, stdout) as private binary files; while the block runs, descriptors
    0, 1 and 2 point at the null device and ``sys.stderr`` appends to ``log``."""
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    saved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in (0, 1, 2)]
    null = os.open(os.devnull, os.O_RDWR)
    old_stderr = sys.stderr
    try:
        sys.stderr.flush()
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        sys.stderr = StderrToLog(log)
        with os.fdopen(wire_in, "rb", buffering=0, closefd=False) as raw_in, \
                os.fdopen(wire_out, "wb", buffering=0, closefd=False) as raw_out:
            yield raw_in, raw_out
    finally:
        try:
            sys.stderr.flush()
        finally:
            sys.stderr = old_stderr
            for fd, copy in zip((0, 1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
            os.close(null)
        # the wire's duplicates stay open: a worker thread may still block on them


async def serve(run: Callable[[Any, Any], Any], wire_in: BinaryIO, wire_out: BinaryIO,
                screen: Screen | None = None) -> None:
    """Read ``wire_in`` a line at a time, answer what :class:`Screen` refuses, hand the rest
    to ``run(read_stream, write_stream)`` (the SDK's server loop) and write what it sends
    to ``wire_out``; returns once stdin closes and the server has answered."""
    screen = screen or Screen()
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    out_send, out_recv = anyio.create_memory_object_stream[str](64)
    reading, writing = anyio.CapacityLimiter(1), anyio.CapacityLimiter(1)
    lines = _lines(wire_in)
    replies, forwarded = out_send.clone(), out_send.clone()
    out_send.close()  # the two clones keep the writer going

    async def reader() -> None:
        async with read_send, replies:
            while True:
                line = await anyio.to_thread.run_sync(next, lines, None, limiter=reading,
                                                      abandon_on_cancel=True)
                if line is None:
                    return
                verdict = screen.check(line)
                reply: Reply | None = verdict.reply
                if verdict.message is not None:
                    message, reply = _validated(verdict.message)
                    if message is not None:
                        await read_send.send(SessionMessage(message))
                if reply is not None:
                    await replies.send(json.dumps(reply, ensure_ascii=False))

    async def forward() -> None:
        async with write_recv, forwarded:
            async for item in write_recv:
                await forwarded.send(item.message.model_dump_json(by_alias=True, exclude_unset=True))

    async def writer() -> None:
        async with out_recv:
            async for text in out_recv:
                data = (text + "\n").encode("utf-8")
                await anyio.to_thread.run_sync(_write, wire_out, data, limiter=writing)

    async with anyio.create_task_group() as tg:
        tg.start_soon(writer)
        tg.start_soon(forward)
        tg.start_soon(reader)
        await run(read_recv, write_send)


def _lines(wire_in: BinaryIO) -> Iterator[bytes]:
    reader = io.BufferedReader(wire_in)  # type: ignore[type-var]
    while True:
        try:
            line = reader.readline()
        except OSError:
            return
        if not line:
            return
        yield line


def _write(wire_out: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = wire_out.write(view)
        except BrokenPipeError:
            return  # the client is gone; stdin's end stops the server
        view = view[written or 0:]


def _validated(message: dict[str, Any]) -> tuple[Any, Reply | None]:
    """The SDK's message for ``message``, or the one-line refusal of a request it cannot
    read (a notification or a response it cannot read is dropped: nobody waits for it)."""
    try:
        return types.jsonrpc_message_adapter.validate_python(message, by_name=False), None
    except Exception as exc:  # noqa: BLE001 - pydantic's error: shown in one line
        request_id = message.get("id")
        if "method" not in message or not usable_id(request_id):
            return None, None
        return None, error(INVALID_REQUEST, f"invalid request: {_first_problem(exc)}",
                           request_id)


def _first_problem(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()) if not isinstance(p, int))
            return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
        except Exception:  # noqa: BLE001
            pass
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
