"""Progress on a terminal: a transient bar on stderr for work that takes more than about a
second, whichever command started it (:mod:`genesis_git.kernel.progress`).

Never on a pipe, never on stdout; work that ends within the delay shows nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

DELAY = 1.0  # seconds of work before a bar appears


class _Bar:
    """One rich progress bar, started by a timer once work has lasted :data:`DELAY`."""

    def __init__(self, delay: float) -> None:
        self._delay = delay
        self._lock = threading.Lock()
        self._progress: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None
        self._shown = False
        self._closed = False

    def __call__(self, what: str, done: int, total: int | None) -> None:
        with self._lock:
            if self._closed:
                return
            if not what:  # the work is over: take the bar away until the next one
                self._hide()
                return
            if self._progress is None:
                self._progress, self._task = _new_progress()
                self._timer = threading.Timer(self._delay, self._show)
                self._timer.daemon = True
                self._timer.start()
            counted = f"{what} {done:,}/{total:,}" if total else what
            self._progress.update(self._task, description=counted, completed=done, total=total)

    def _show(self) -> None:
        from genesis_git.cli.output import progress_enabled

        with self._lock:  # -q is known by now: the global options are read before any work
            if not self._closed and not self._shown and progress_enabled():
                self._progress.start()
                self._shown = True

    def _hide(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._shown:
            self._progress.stop()
        self._progress, self._task, self._shown = None, None, False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._hide()


def _new_progress() -> tuple[Any, Any]:
    import sys

    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from genesis_git.cli.output import console

    encoding = (getattr(sys.stderr, "encoding", None) or "ascii").lower().replace("-", "")
    spinner = SpinnerColumn("dots" if encoding.startswith("utf") else "line")  # ASCII: line
    bar = Progress(spinner, TextColumn("{task.description}"), BarColumn(),
                   TimeElapsedColumn(), console=console(stderr=True),
                   transient=True, redirect_stdout=False, redirect_stderr=False)
    return bar, bar.add_task("", total=None)


@contextmanager
def shown(delay: float | None = None) -> Iterator[None]:
    """Show the progress the core reports inside the block, when stderr is a terminal, once
    the work has lasted ``delay`` seconds (:data:`DELAY`)."""
    from genesis_git.cli.output import stderr_is_tty
    from genesis_git.kernel.environment import ENV_TEST_PROGRESS_DELAY

    if delay is None:
        delay = ENV_TEST_PROGRESS_DELAY.number() if ENV_TEST_PROGRESS_DELAY.raw() else DELAY

    if not stderr_is_tty():
        yield
        return
    from genesis_git.kernel.progress import listening

    bar = _Bar(delay)
    try:
        with listening(bar):
            yield
    finally:
        bar.close()
