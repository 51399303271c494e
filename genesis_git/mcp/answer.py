"""The shape of every tool's answer: bounded, with a cursor to the rest, and JSON twice.

An answer is the tool's JSON (the command's ``--json``) as structured content,
the same JSON serialized in a text block (what the 2025-06-18 specification
asks of a tool with structured content) and a short text rendering before it.
All three together stay within ``mcp.max_answer_bytes`` (64 KiB by default):
the text rendering gets an eighth of it, each copy of the JSON half of the rest.

When the JSON is larger, the tool's list (search results, impact files,
stories, matches, …) is cut where the budget ends and the answer says so in
``truncated`` and ``next_cursor``; passing ``next_cursor`` back as ``cursor``
with the same arguments continues exactly where the answer was cut, so paging
returns every item once.  A single string too long for any page (a 1 MB note)
is shortened with a mark that says how much was cut.  An answer that fits is
the command's JSON unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from genesis_git.kernel.errors import UsageError

TEXT_SHARE = 8  # the text rendering's share of the budget: 1/8
_PAGE_FIELDS = 400  # what ``truncated`` and ``next_cursor`` add, at most


def size(value: Any) -> int:
    """Bytes of ``value`` as JSON in UTF-8 (as the answer carries it)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def json_budget(limit: int) -> int:
    """Bytes each copy of the JSON may take within ``limit``."""
    return (limit - limit // TEXT_SHARE) // 2


# -- cursors ---------------------------------------------------------------------------------

def fingerprint(tool: str, args: dict[str, Any]) -> str:
    """What a cursor is bound to: the tool and its arguments (repo, cursor aside)."""
    kept = {k: v for k, v in sorted(args.items()) if k not in ("cursor", "repo")}
    text = json.dumps([tool, kept], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def seen_digest(items: list[Any]) -> str:
    """What a cursor knows of the items before it: a change among them (an edit, a commit since
    the first page) means its offset no longer continues the same list."""
    text = json.dumps(items, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_cursor(tool: str, args: dict[str, Any], offset: int, seen: str = "") -> str:
    raw = json.dumps({"t": tool, "o": offset, "f": fingerprint(tool, args), "s": seen},
                     separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(tool: str, args: dict[str, Any], cursor: str | None) -> tuple[int, str]:
    """The offset a cursor continues at and what it saw of the items before it (0 and "" without
    one); a cursor of another tool or of other arguments is a usage error naming the argument."""
    if not cursor:
        return 0, ""
    try:
        padded = cursor.strip() + "=" * (-len(cursor.strip()) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = int(data["o"])
        seen = str(data.get("s", ""))
        same = data["t"] == tool and data["f"] == fingerprint(tool, args)
    except (ValueError, KeyError, TypeError, AttributeError):
        raise UsageError("cursor: not a cursor genesis gave",
                         hint="pass the next_cursor of the previous answer unchanged") from None
    if not same or offset < 0:
        raise UsageError(f"cursor: it continues another {tool} call",
                         hint="repeat the arguments of the call that gave it") from None
    return offset, seen


# -- cutting ---------------------------------------------------------------------------------

def _longest(value: Any, path: tuple[Any, ...] = ()) -> tuple[int, tuple[Any, ...]]:
    if isinstance(value, str):
        return len(value), path
    best: tuple[int, tuple[Any, ...]] = (-1, path)
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, inner in items:
        found = _longest(inner, (*path, key))
        if found[0] > best[0]:
            best = found
    return best


def _replace(value: Any, path: tuple[Any, ...], new: str) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    out = list(value)
    out[head] = _replace(out[head], rest, new)
    return out


def cut_strings(value: Any, budget: int) -> tuple[Any, int]:
    """``value`` with its longest strings shortened until it fits ``budget`` bytes; the number of
    strings cut.  Each cut one ends with a mark saying how many characters it had."""
    cuts = 0
    seen: set[tuple[Any, ...]] = set()
    while size(value) > budget:
        length, path = _longest(value)
        if length < 0 or path in seen and length <= 80:
            break
        excess = size(value) - budget
        keep = max(0, length - excess - 80)
        text = _get(value, path)
        original = _original_length(text)
        mark = f" … [cut: {original - keep} of {original} characters]"
        value = _replace(value, path, text[:keep] + mark)
        seen.add(path)
        cuts += 1
    return value, cuts


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _original_length(text: str) -> int:
    """The length a string had before an earlier cut (its mark says it)."""
    if text.endswith(" characters]") and " … [cut: " in text:
        try:
            return int(text.rsplit(" of ", 1)[1].split(" ", 1)[0])
        except ValueError:
            pass
    return len(text)


def page(data: dict[str, Any], key: str, offset: int, budget: int,
         related: str | None = None) -> tuple[dict[str, Any], int | None, int]:
    """The items of ``data[key]`` from ``offset`` that fit ``budget`` with the rest of ``data``:
    ``(data, next offset or None, strings cut)``.  With ``related``, the list ``data[related]``
    keeps only the entries of the paths the page's items name (a grep's files)."""
    items = list(data.get(key) or [])
    by_path = {e.get("path"): e for e in data.get(related) or []} if related else {}
    rest = {k: v for k, v in data.items() if k != key and k != related}
    cuts = 0
    if size(rest) > budget // 2:
        rest, cuts = cut_strings(rest, budget // 2)
    room = budget - size(rest) - _PAGE_FIELDS - len(key) - len(related or "") - 16
    chosen: list[Any] = []
    kept: dict[Any, Any] = {}
    used = 0
    for item in items[offset:]:
        entry = by_path.get(item.get("path")) if isinstance(item, dict) else None
        extra = size(entry) + 1 if entry is not None and item["path"] not in kept else 0
        cost = size(item) + 1 + extra
        if cost > room and not chosen:  # one item larger than a page: shortened, never skipped
            item, more = cut_strings(item, max(room - extra - 1, 0))
            cuts += more
            cost = size(item) + 1 + extra
        if used + cost > room and chosen:
            break
        chosen.append(item)
        if entry is not None:
            kept[item["path"]] = entry
        used += cost
    end = offset + len(chosen)
    shaped = {**rest, key: chosen}
    if related:
        shaped[related] = list(kept.values())
    return shaped, (end if end < len(items) else None), cuts


def bounded(tool: str, args: dict[str, Any], data: dict[str, Any], key: str | None,
            limit: int, cursor: str | None, related: str | None = None) -> dict[str, Any]:
    """``data`` within the JSON budget of ``limit``; with ``truncated`` and ``next_cursor`` when
    anything was cut or a cursor was given, else unchanged."""
    offset, seen = read_cursor(tool, args, cursor)
    budget = json_budget(limit)
    if key is None:
        if size(data) <= budget:
            return data
        shaped, cuts = cut_strings(data, budget - _PAGE_FIELDS)
        return {**shaped, "truncated": {"reason": _reason(limit), "strings_cut": cuts},
                "next_cursor": None}
    total = len(data.get(key) or [])
    if offset > total or (seen and seen_digest((data.get(key) or [])[:offset]) != seen):
        raise UsageError(f"cursor: the {key} changed since it was given (an edit or a commit)",
                         hint="repeat the call without cursor")
    if offset == 0 and size(data) <= budget:
        return data
    shaped, after, cuts = page(data, key, offset, budget, related)
    returned = len(shaped[key])
    note: dict[str, Any] = {"list": key, "offset": offset, "returned": returned, "total": total,
                            "strings_cut": cuts}
    if after is not None or cuts:
        note["reason"] = _reason(limit)
    return {**shaped, "truncated": note,
            "next_cursor": make_cursor(tool, args, after, seen_digest(
                (data.get(key) or [])[:after])) if after is not None else None}


def _reason(limit: int) -> str:
    return (f"the answer is kept within mcp.max_answer_bytes ({limit:,} bytes); pass next_cursor "
            f"as cursor, with the same arguments, for the rest")


def cut_text(text: str, limit: int) -> str:
    """The text rendering within its share of ``limit``."""
    budget = limit // TEXT_SHARE
    raw = text.encode()
    if len(raw) <= budget:
        return text
    kept = raw[:max(budget - 80, 0)].decode(errors="ignore")
    return kept.rsplit("\n", 1)[0] + f"\n… [text cut at {budget:,} bytes; the JSON below holds " \
                                      "the answer]"


def with_json(result: CallToolResult) -> CallToolResult:
    """The answer with its structured content serialized in a second text block."""
    if result.is_error or result.structured_content is None:
        return result
    dumped = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[*result.content, TextContent(type="text", text=dumped)],
                          structured_content=result.structured_content)


def trailer(data: dict[str, Any]) -> str:
    """The line the text rendering ends with when the JSON was cut."""
    note = data.get("truncated")
    if not note:
        return ""
    if data.get("next_cursor"):
        return (f"\n[{note.get('returned', 0)} of {note.get('total', 0)} {note.get('list')} shown;"
                f" call again with cursor={data['next_cursor']} for the rest]")
    if note.get("strings_cut"):
        return f"\n[{note['strings_cut']} long text(s) shortened to fit the answer]"
    return ""
