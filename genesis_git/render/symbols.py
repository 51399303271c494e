"""Symbols and the exact/regex search: JSON for programs, ``path:line`` lines for people.

The lines follow ``git grep -n``: ``path:line:text`` for a match, and
``path:line: kind name`` for a definition, so that an editor or a terminal
that knows the form jumps to it.  Text from files is flattened and stripped of
control characters; in JSON it is a string.
"""

from __future__ import annotations

from typing import Any

from genesis_git.render.terminal import Paint, clean, no_paint
from genesis_git.search.grep import GrepResult

GREP_SCHEMA = 1


def grep_json(result: GrepResult) -> dict[str, Any]:
    """What ``genesis search --regex/--fixed-strings --json`` prints."""
    return {
        "schema": GREP_SCHEMA,
        "query": result.pattern,
        "mode": "regex" if result.regex else "fixed",
        "ignore_case": result.ignore_case,
        "session": result.session_id,
        "files_searched": result.files_searched,
        "files": [{"path": p, "score": s, "matches": n} for p, s, n in result.files],
        "files_left_out": result.truncated_files,
        "matches": [{**m.as_dict(), "location": f"{m.path}:{m.line}"} for m in result.matches],
    }


def _line(text: str) -> str:
    return clean(text).replace("\n", " ").replace("\t", "    ")


def grep_lines(data: dict[str, Any], paint: Paint = no_paint) -> list[str]:
    """``path:line:text`` per match, as ``git grep -n`` prints it."""
    return [f"{paint(m['path'], 'path')}:{paint(str(m['line']), 'line')}:{_line(m['text'])}"
            for m in data["matches"]]


def grep_summary(data: dict[str, Any]) -> str:
    """The short text beside the JSON: a head line, then the matches."""
    files = len(data["files"])
    head = (f"{len(data['matches'])} matching lines in {files} files for {data['mode']} "
            f"{data['query']!r} ({data['files_searched']} files searched)")
    return "\n".join([head, *grep_lines(data)])


def definition_lines(definitions: list[dict[str, Any]], paint: Paint = no_paint) -> list[str]:
    """``path:line: kind name``, and for an inherited method the class asked for."""
    return [f"{paint(d['path'], 'path')}:{paint(str(d['line']), 'line')}: {d['kind']} "
            f"{_line(d['name'])}" + (f" (inherited by {_line(d['via'][0])})" if d.get("via")
                                     else "") for d in definitions]


def symbol_lines(data: dict[str, Any], paint: Paint = no_paint) -> list[str]:
    """Definitions, then (with references) a blank line and the references."""
    lines = definition_lines(data["definitions"], paint)
    if "references" in data:
        refs = [f"{paint(r['path'], 'path')}:{paint(str(r['line']), 'line')}:{_line(r['text'])}"
                for r in data["references"]]
        lines += ([""] if lines and refs else []) + refs
    return lines


def symbol_summary(data: dict[str, Any]) -> str:
    """The short text beside the JSON of a lookup or an outline."""
    if "name" in data:
        head = f"{len(data['definitions'])} definitions of {data['name']!r}"
        if "references" in data:
            head += f", {len(data['references'])} references"
    else:
        head = f"{len(data['definitions'])} definitions in {data['path']}"
    return "\n".join([head, *symbol_lines(data)])
