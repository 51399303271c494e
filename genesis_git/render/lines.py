"""Small pieces every renderer uses: the JSON text, one line for an error, warnings before
the text."""

from __future__ import annotations

import json
from typing import Any


def json_text(obj: Any, ascii_only: bool = False) -> str:
    """Stable JSON: keys in schema order (not sorted), UTF-8 kept (``\\uXXXX`` escapes with
    ``ascii_only``), two-space indents."""
    return json.dumps(obj, ensure_ascii=ascii_only, indent=2, default=str)


def one_line(text: str) -> str:
    """``text`` on one line, for a tool error."""
    return " ".join(str(text).split())


def with_warnings(lines: list[str], warnings: list[str]) -> list[str]:
    """``warning: …`` lines first, then ``lines``."""
    return [*(f"warning: {w}" for w in warnings), *lines]
