"""The one error gate of every door, and the one log.

The command line (``genesis_git.cli.main``), the git hooks (``genesis_git.hooks.run``) and
the MCP server (``genesis_git.mcp.server``) hand whatever escaped their work to
:func:`handle`:

* an expected failure (a :class:`GenesisError`, or a store that is locked, corrupt or
  read-only) becomes one line and its documented exit code;
* anything else is a bug: its traceback, the versions and the command are appended to
  the log file (``genesis.log`` in the store's folder, else the user cache), and the one
  line names that file; exit code 70.

Each door adds its own prefix to the line and decides what the exit code means for it
(the hooks never fail a commit).  Core code never writes to stderr: a warning that has
no result to travel in goes through :func:`warn` to the standard ``logging`` module
(the ``genesis_git`` logger), and a door shows it (the command line and the hooks as
``genesis: warning: …`` on stderr, the MCP server in its log).

Standard library only, and ``logging`` is imported only when something is logged: the
hooks load this module on every commit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from genesis_git import __version__
from genesis_git.kernel.base import append_log
from genesis_git.kernel.errors import ExitCode, GenesisError, store_error

LOGGER = "genesis_git"
LOG_ROTATE_BYTES = 1 << 20  # genesis.log moves to genesis.log.1 past this


@dataclass(frozen=True)
class Failure:
    """What a door shows for an exception: one line and an exit code."""

    code: int
    message: str  # the one line, without the door's prefix
    internal: bool  # a bug: the traceback is in ``log``
    log: str | None = None  # the log file written (``None``: none could be)


Record = Callable[[str, str], "str | os.PathLike[str] | None"]
"""Writes a failure to a log: ``(summary, traceback)`` -> the file written, or ``None``."""


def user_cache_log() -> str:
    """The log outside any repository: ``$XDG_CACHE_HOME/genesis/genesis.log``."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "genesis", "genesis.log")


def log_entry(command: Sequence[str], line: str | None, detail: str) -> str:
    """One entry of a log: ``--- <time> <command> (genesis <v>, python <v>)``, the one-line
    summary when given (the hook log keeps it for ``genesis doctor``), then ``detail`` (the
    traceback, whose last line says the same)."""
    from datetime import datetime, timezone

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    python = ".".join(str(n) for n in sys.version_info[:3])
    head = f"--- {stamp} {' '.join(command)} (genesis {__version__}, python {python})\n"
    return head + ("" if line is None else f"{line}\n") + f"{detail.rstrip()}\n"


def log_to(files: Callable[[], Iterable[str | os.PathLike[str]]], command: Sequence[str],
           rotate_at: int = LOG_ROTATE_BYTES) -> Record:
    """A :data:`Record` that appends the traceback to the first of ``files()`` that can be
    written."""
    def record(line: str, detail: str) -> str | os.PathLike[str] | None:
        return append_log(files(), log_entry(command, None, detail), rotate_at=rotate_at)
    return record


def expected(exc: BaseException,
             store: Callable[[], object | None] | None = None) -> GenesisError | None:
    """The user's version of ``exc`` (``None``: a bug).  ``store`` names the store for the
    message of a store error; it is called only then."""
    if isinstance(exc, GenesisError):
        return exc
    user = store_error(exc)
    if user is not None and store is not None:
        where = store()
        if where is not None:
            user = store_error(exc, where) or user
    return user


def summary(exc: BaseException) -> str:
    """``Type: message`` on one line."""
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")


def handle(exc: BaseException, *, record: Record,
           store: Callable[[], object | None] | None = None, debug: bool = False,
           log_expected: bool = False) -> Failure:
    """The one line and the exit code for ``exc``.

    A bug's summary and traceback go to ``record`` (an expected failure's too with
    ``log_expected``: the hooks keep every failure for ``genesis story rebuild``); with
    ``debug``, the traceback is also shown on stderr."""
    import traceback

    if isinstance(exc, KeyboardInterrupt):
        return Failure(int(ExitCode.INTERRUPTED), "interrupted", False)
    user = expected(exc, store)
    where = None
    if user is None or log_expected:
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        written = record(summary(exc), detail)
        where = os.fspath(written) if written is not None else None
    if debug:
        _print_traceback(exc)
    if user is not None:
        return Failure(int(user.exit_code), str(user), False, where)
    tail = (f"the traceback is in {where}" if where is not None
            else "run with --debug for the traceback")
    return Failure(int(ExitCode.INTERNAL), f"{summary(exc)} ({tail})", True, where)


def _print_traceback(exc: BaseException) -> None:
    import traceback

    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


# -- the log ----------------------------------------------------------------------------

def warn(message: str) -> None:
    """A warning of core code that no result carries: logged on the ``genesis_git`` logger.

    When no door has set the logger up, it is shown on stderr as ``genesis: warning: …``
    (see :func:`show_on_stderr`)."""
    import logging

    logger = logging.getLogger(LOGGER)
    if not logger.handlers:
        show_on_stderr()
    logger.warning(message)


def show_on_stderr(prefix: str = "genesis: ") -> None:
    """Show the ``genesis_git`` logger's warnings on the stderr of the moment (a test's
    captured stream included): ``genesis: warning: …``.  The command line and the hooks."""
    import logging

    class Stderr(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                sys.stderr.write(f"{prefix}{record.levelname.lower()}: "
                                 f"{record.getMessage()}\n")
            except (OSError, ValueError):  # pragma: no cover - stderr is closed
                pass

    logger = logging.getLogger(LOGGER)
    if not any(getattr(h, "genesis_door", False) for h in logger.handlers):
        handler = Stderr(logging.WARNING)
        handler.genesis_door = True  # type: ignore[attr-defined]
        logger.addHandler(handler)


def log_to_file(path: str | os.PathLike[str]) -> None:
    """Send every warning (genesis's and its libraries') to ``path``, the log file that
    :func:`handle` writes too, rotated the same way, and nothing to stderr (the MCP server)."""
    import logging
    from logging.handlers import RotatingFileHandler

    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    except OSError:  # the handler says so on the first record it cannot write
        pass
    handler = RotatingFileHandler(path, maxBytes=LOG_ROTATE_BYTES, backupCount=1,
                                  encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter(
        f"--- %(asctime)s genesis {__version__} %(name)s: %(levelname)s: %(message)s"))
    for logger in (logging.getLogger(LOGGER), logging.getLogger()):
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
    logging.getLogger(LOGGER).propagate = False  # the root logger writes the same file
