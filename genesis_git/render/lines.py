"""Small pieces every renderer uses: one line for an error, warnings before the text."""

from __future__ import annotations


def one_line(text: str) -> str:
    """``text`` on one line, for a tool error."""
    return " ".join(str(text).split())


def with_warnings(lines: list[str], warnings: list[str]) -> list[str]:
    """``warning: …`` lines first, then ``lines``."""
    return [*(f"warning: {w}" for w in warnings), *lines]
