"""Progress of long work, reported by the core and shown by whoever listens.

The core says what it is doing (``report("indexing", 120, 2087)``) wherever the work
is long: indexing the working tree, building the search index, reading git history.
Nothing listens by default, so the hooks, the MCP server and the library stay
silent; the command line listens while a command runs
(:mod:`genesis_git.cli.progress`) and shows a bar on a terminal's stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: ``(what, done, total)``: ``total`` is ``None`` while the amount of work is unknown;
#: an empty ``what`` says the work is over (:func:`finished`).
Sink = Callable[[str, int, "int | None"], None]

_sinks: list[Sink] = []


def report(what: str, done: int = 0, total: int | None = None) -> None:
    """Say what the work in progress is, and how far it is (cheap when nobody listens)."""
    if _sinks:
        _sinks[-1](what, done, total)


@contextmanager
def listening(sink: Sink) -> Iterator[None]:
    """Send every :func:`report` made inside the block to ``sink``."""
    _sinks.append(sink)
    try:
        yield
    finally:
        _sinks.remove(sink)


def finished() -> None:
    """The work reported so far is over: a listener takes its bar away."""
    if _sinks:
        _sinks[-1]("", 0, None)


@contextmanager
def working(what: str, total: int | None = None) -> Iterator[None]:
    """Report ``what`` for the length of the block, and :func:`finished` after it."""
    report(what, 0, total)
    try:
        yield
    finally:
        finished()
