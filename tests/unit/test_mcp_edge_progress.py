"""Progress of ``genesis mcp``: each call's long work goes to that call's progress token only,
and the count a client sees only ever grows."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread

from genesis_git.kernel.progress import report
from genesis_git.mcp import calls as calls_module
from genesis_git.mcp.calls import Call
from genesis_git.mcp.progress import reporting


class Recorder:
    """A call seen from the listener: whether it wants progress, and what it got."""

    def __init__(self, wants: bool) -> None:
        self.wants = wants
        self.got: list[tuple[str, int, int | None]] = []

    def wants_progress(self) -> bool:
        return self.wants

    def progress(self, what: str, done: int, total: int | None) -> None:
        self.got.append((what, done, total))


def test_each_thread_reports_to_its_own_call_and_a_call_without_token_to_none() -> None:
    first, second, silent = Recorder(True), Recorder(True), Recorder(False)
    inside = threading.Barrier(3)

    def run(call: Recorder, what: str) -> None:
        with reporting(call):  # type: ignore[arg-type]
            inside.wait(30)
            report(what, 1, 2)
            inside.wait(30)

    threads = [threading.Thread(target=run, args=(c, w)) for c, w in
               ((first, "indexing first"), (second, "indexing second"), (silent, "quiet"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert first.got == [("indexing first", 1, 2)]
    assert second.got == [("indexing second", 1, 2)]
    assert silent.got == []


def test_a_pool_thread_reports_to_the_one_call_that_wants_progress() -> None:
    wanting, silent = Recorder(True), Recorder(False)
    registered, finish = threading.Event(), threading.Event()

    def other() -> None:
        with reporting(wanting):  # type: ignore[arg-type]
            pool = threading.Thread(target=report, args=("indexing", 3, 9))
            pool.start()
            pool.join(30)
            registered.set()
            finish.wait(30)

    worker = threading.Thread(target=other)
    with reporting(silent):  # type: ignore[arg-type]
        worker.start()
        assert registered.wait(30)
        report("the silent call's own work", 1, 1)  # not the other call's progress
        finish.set()
    worker.join(30)
    assert wanting.got == [("indexing", 3, 9)]
    assert silent.got == []


def test_the_count_only_grows_across_phases(monkeypatch: Any) -> None:
    monkeypatch.setattr(calls_module, "PROGRESS_EVERY", 0.0)
    sent: list[tuple[float, float | None, str | None]] = []

    class Context:
        async def report_progress(self, progress: float, total: float | None = None,
                                  message: str | None = None) -> None:
            sent.append((progress, total, message))

    async def drive() -> None:
        call = Call(Context(), anyio.lowlevel.current_token(), "search")

        def work() -> None:
            for done in (0, 64, 64, 128):
                call.progress("indexing", done, 128)
            call.progress("", 0, None)
            call.progress("building the search index", 0, None)
            call.progress("building the search index", 10, 40)

        await anyio.to_thread.run_sync(work)

    anyio.run(drive)
    values = [p for p, _, _ in sent]
    assert values == sorted(set(values))  # strictly growing: no repeat, no step back
    assert sent[0] == (0.0, 128.0, "indexing 0/128")
    assert sent[-1] == (138.0, 168.0, "building the search index 10/40")
