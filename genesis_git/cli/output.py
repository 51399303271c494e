"""Writing out: rich for people on a terminal, JSON for programs, plain text when piped.

What the text says is rendered by :mod:`genesis_git.render`; this module only knows where it
goes (stdout, or stderr for notes and warnings) and whether that is a terminal."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def stdout_is_tty() -> bool:
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def stderr_is_tty() -> bool:
    return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"


def emit_json(obj: Any) -> None:
    """Stable JSON on stdout (:func:`genesis_git.render.lines.json_text`)."""
    from genesis_git.render.lines import json_text

    sys.stdout.write(json_text(obj) + "\n")


def echo(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def warn(text: str) -> None:
    """One warning line on stderr."""
    sys.stderr.write(f"genesis: warning: {text}\n")


def note(text: str) -> None:
    """One informational line on stderr (never mixed into stdout)."""
    sys.stderr.write(f"genesis: {text}\n")


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)
