"""The core's progress (:mod:`genesis_git.kernel.progress`) as ``notifications/progress``
of the tool call that does the work.

Calls on different repositories run side by side, so one listener sends each report to
the call of the thread that makes it (nowhere, when that call's request has no progress
token); a report from a thread of no call (a pool the work started) goes to the one call
that wants progress, if there is exactly one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from genesis_git.kernel.progress import listening
from genesis_git.mcp.calls import Call

_by_thread: dict[int, Call | None] = {}  # the thread of each running call: its call
_guard = threading.Lock()


def _dispatch(what: str, done: int, total: int | None) -> None:
    me = threading.get_ident()
    with _guard:
        if me in _by_thread:
            call = _by_thread[me]
        else:
            wanting = {id(c): c for c in _by_thread.values() if c is not None}
            call = next(iter(wanting.values())) if len(wanting) == 1 else None
    if call is not None:
        call.progress(what, done, total)


@contextmanager
def reporting(call: Call | None) -> Iterator[None]:
    """Inside the block, the core's progress made on this thread goes to ``call``'s client
    (when its request carries a progress token)."""
    me = threading.get_ident()
    with _guard:
        _by_thread[me] = call if call is not None and call.wants_progress() else None
    try:
        with listening(_dispatch):
            yield
    finally:
        with _guard:
            _by_thread.pop(me, None)
