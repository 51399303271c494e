"""Rendering helpers: rich for people on a terminal, JSON for programs, plain text when piped."""

from __future__ import annotations

import json
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
    """Stable JSON on stdout: sorted keys off (schema order), UTF-8 kept."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


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
