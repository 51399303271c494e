"""What one query may cost.

Agents paste whole issues, stack traces and logs as queries.  Two bounds keep
the work of any query close to that of a normal one: only the first
:data:`MAX_QUERY_CHARS` characters are read, and only the
:data:`MAX_QUERY_TERMS` weightiest distinct terms are scored.  Both callers
(search and impact) report what they left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

MAX_QUERY_CHARS = 32_768
MAX_QUERY_TERMS = 128


def bound_query(text: str, limit: int = MAX_QUERY_CHARS) -> tuple[str, int]:
    """``text`` cut to at most ``limit`` characters, and how many characters were left out.

    The cut falls on the last whitespace of the final 200 characters when there
    is one, so that no word is read half.
    """
    if len(text) <= limit:
        return text, 0
    head = text[:limit]
    space = max(head.rfind(" ", limit - 200), head.rfind("\n", limit - 200))
    if space > 0:
        head = head[:space]
    return head, len(text) - len(head)


def term_priority(weight: float, count: int) -> float:
    """How much a distinct term of a query is worth keeping: its weight, more when repeated."""
    return weight * (1.0 + 0.5 * math.log(count)) if count > 1 else weight


def weightiest(priority: Mapping[str, float], limit: int = MAX_QUERY_TERMS) -> set[str]:
    """The ``limit`` terms of highest priority; among equals, those that come first."""
    if len(priority) <= limit:
        return set(priority)
    order = sorted(enumerate(priority.items()), key=lambda x: (-x[1][1], x[0]))
    return {term for _, (term, _) in order[:limit]}


def bound_notes(total_chars: int, left_out_chars: int, total_terms: int, kept_terms: int
                ) -> list[str]:
    """The warnings that say what a bounded query left out (none when nothing was)."""
    notes: list[str] = []
    if left_out_chars:
        notes.append(f"long query: only its first {total_chars - left_out_chars:,} of "
                     f"{total_chars:,} characters were read")
    if kept_terms < total_terms:
        notes.append(f"the query has {total_terms:,} distinct terms: the {kept_terms} "
                     "weightiest were used")
    return notes
