"""The core's progress (:mod:`genesis_git.kernel.progress`) as ``notifications/progress``
of the tool call that does the work.

Calls on different repositories run side by side, so one listener sends each report to
the call of the thread that makes it; a report from a thread of no call (a pool the work
started) goes to the one call that is reporting, if there is exactly one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from genesis_git.kernel.progress import listening
from genesis_git.mcp.calls import Call

_by_thread: dict[int, Call] = {}
_guard = threading.Lock()


def _dispatch(what: str, done: int, total: int | None) -> None:
    with _guard:
        call = _by_thread.get(threading.get_ident())
        if call is None:
            calls = set(map(id, _by_thread.values()))
            call = next(iter(_by_thread.values())) if len(calls) == 1 else None
    if call is not None:
        call.progress(what, done, total)


@contextmanager
def reporting(call: Call | None) -> Iterator[None]:
    """Inside the block, the core's progress made on this thread goes to ``call``'s client
    (when its request carries a progress token)."""
    if call is None or not call.wants_progress():
        yield
        return
    me = threading.get_ident()
    with _guard:
        _by_thread[me] = call
    try:
        with listening(_dispatch):
            yield
    finally:
        with _guard:
            _by_thread.pop(me, None)
