"""Appending to a log file that must never be the reason a command or a hook fails.

Standard library only: the hooks write their failures with it."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    from collections.abc import Iterable


def append_log(paths: Iterable[str | os.PathLike[str]], entry: str,
               rotate_at: int | None = None) -> str | os.PathLike[str] | None:
    """Append ``entry`` to the first of ``paths`` that can be written (its folder made when
    missing); a file past ``rotate_at`` bytes is moved to ``<name>.1`` first.  Returns the
    path written, ``None`` when none could be: a log must never be the reason a command or
    a hook fails."""
    for path in paths:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            if rotate_at is not None and os.path.exists(path) and os.path.getsize(path) > rotate_at:
                os.replace(path, f"{os.fspath(path)}.1")
            # bytes that were not UTF-8 (an argument, a path) are written escaped
            with open(path, "a", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(entry)
            return path
        except OSError:
            continue
    return None
