"""The one log: where a failure's traceback is written, and how core code warns.

The doors' error gate (:func:`genesis_git.kernel.errors.handle`) writes a bug's traceback,
with the versions and the command (:func:`log_entry`), to ``genesis.log`` in the store's
folder, else to :func:`user_cache_log`; the MCP server sends its warnings to the same file
(:func:`log_to_file`).  Core code never writes to stderr: a warning that no result carries
goes through :func:`warn` to the standard ``logging`` module (the ``genesis_git`` logger),
and the door shows it: the command line and the hooks as ``genesis: warning: …`` on
stderr, the MCP server in its log.

Standard library only, and ``logging`` is imported only when something is logged: the
hooks load this module on every commit.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence

LOGGER = "genesis_git"
LOG_ROTATE_BYTES = 1 << 20  # genesis.log moves to genesis.log.1 past this


def user_cache_log() -> str:
    """The log outside any repository: ``$XDG_CACHE_HOME/genesis/genesis.log``."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "genesis", "genesis.log")


def log_entry(command: Sequence[str], line: str | None, detail: str, version: str) -> str:
    """One entry of a log: ``--- <time> <command> (genesis <v>, python <v>)``, the one-line
    summary when given (the hook log keeps it for ``genesis doctor``), then ``detail`` (the
    traceback, whose last line says the same)."""
    from datetime import datetime, timezone

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    python = ".".join(str(n) for n in sys.version_info[:3])
    head = f"--- {stamp} {' '.join(command)} (genesis {version}, python {python})\n"
    return head + ("" if line is None else f"{line}\n") + f"{detail.rstrip()}\n"


def record_bug(paths: Sequence[str | os.PathLike[str]], command: Sequence[str], detail: str,
               version: str) -> str | os.PathLike[str] | None:
    """Append a bug's :func:`log_entry` to the first of ``paths`` that can be written (each
    log rotated past :data:`LOG_ROTATE_BYTES`); the path written, ``None`` when none was."""
    from genesis_git.kernel.logfile import append_log

    return append_log(paths, log_entry(command, None, detail, version), rotate_at=LOG_ROTATE_BYTES)


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


def log_to_file(path: str | os.PathLike[str], version: str) -> None:
    """Send every warning (genesis's and its libraries') to ``path``, the log file the error
    gate writes too, rotated the same way, and nothing to stderr (the MCP server)."""
    import logging
    from logging.handlers import RotatingFileHandler

    class Handler(RotatingFileHandler):
        def _open(self) -> io.TextIOWrapper:
            """The folder is made on the first record, not when the server starts."""
            os.makedirs(os.path.dirname(self.baseFilename), exist_ok=True)
            return super()._open()

    handler = Handler(path, maxBytes=LOG_ROTATE_BYTES, backupCount=1, encoding="utf-8",
                      delay=True)
    handler.setFormatter(logging.Formatter(
        f"--- %(asctime)s genesis {version} %(name)s: %(levelname)s: %(message)s"))
    for logger in (logging.getLogger(LOGGER), logging.getLogger()):
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
    logging.getLogger(LOGGER).propagate = False  # the root logger writes the same file
