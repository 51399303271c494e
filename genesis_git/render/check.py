"""``genesis check`` as text for a terminal, as Markdown for a pull-request comment, and as
the MCP tool's short text (the JSON is :meth:`~genesis_git.check.CheckResult.to_json`).

Everything a result holds came from the repository (paths, commit subjects, names), so it
is data: control characters are dropped on the terminal, and in Markdown every character
that could become markup (a table bar, a backtick, ``<``) is escaped, so that a path cannot
break the table or inject HTML into a comment.
"""

from __future__ import annotations

import re
from typing import Any

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!~])")


def _change_line(data: dict[str, Any]) -> str:
    change = data["change"]
    n = len(change["files"])
    return f"{change['label']} ({n} file{'s' if n != 1 else ''})"


def text_lines(data: dict[str, Any], width: int = 80) -> list[str]:
    """One block per item: confidence and path (never cut), then one line per reason, fitted
    to ``width``."""
    from genesis_git.render.terminal import fit, flat
    from genesis_git.text.quoting import quote_path

    items = data["missing"]
    if not items:
        return []
    n = len(items)
    out = [f"{flat(_change_line(data))}: {n} file{'s' if n != 1 else ''} "
           f"probably missing"]
    for item in items:
        out.append(f"{item['confidence']:>5.2f}  {quote_path(item['path'])}")
        for r in item["reasons"]:
            out.append(fit(f"       {r['source']:<10} {flat(r['detail'])}", max(width, 20)))
    return out


def md(text: str) -> str:
    """``text`` as literal Markdown on one line: markup escaped, HTML neutralised."""
    from genesis_git.render.terminal import flat

    text = flat(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_lines(data: dict[str, Any]) -> list[str]:
    """A heading and a table for a pull-request comment; nothing when nothing is missing."""
    items = data["missing"]
    if not items:
        return []
    n = len(items)
    out = [f"### genesis check: {n} file{'s' if n != 1 else ''} this change may have "
           f"forgotten", "",
           f"Change: {md(_change_line(data))}. Each file below usually changes with this "
           f"change's files, uses what it edited, or tests it.", "",
           "| file | confidence | why |", "|---|---|---|"]
    for item in items:
        why = "<br>".join(f"**{md(r['source'])}**: {md(r['detail'])}" for r in item["reasons"])
        out.append(f"| {md(item['path'])} | {item['confidence']:.2f} | {why} |")
    hidden = data.get("below_threshold", 0)
    out += ["", f"<sub>Shown: confidence {data['min_confidence']:.2f} or more"
                + (f"; {hidden} more below it" if hidden else "")
                + ". `genesis check --all` lists every candidate.</sub>"]
    return out


def nothing_missing(data: dict[str, Any]) -> str:
    """The stderr line when no file reaches the threshold."""
    hidden = data.get("below_threshold", 0)
    tail = f"; {hidden} below it (--all lists them)" if hidden else ""
    return (f"nothing missing in {_change_line(data)}: no file reached confidence "
            f"{data['min_confidence']:.2f}{tail}")


def tool_text(data: dict[str, Any]) -> str:
    """The MCP tool's answer: the text lines, or the one line that nothing is missing."""
    lines = text_lines(data, 100)
    return "\n".join(lines) if lines else nothing_missing(data)
