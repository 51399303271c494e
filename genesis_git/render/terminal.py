"""Text for a person's terminal: data made safe to print, lines fitted to the width, and
results that read like grep (``path:line: text``, one line each).

Everything that came from a file, a commit, a note or a title is data: it is printed as it
is, never read as markup, and its control characters (an escape sequence, a bell, a
carriage return) are dropped so that it cannot move the cursor, recolour the terminal or
hide the text before it.  What a user must copy (a path, a line number, an id, a score) is
never cut; a snippet is cut to the width instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

# What :func:`clean` drops: whole escape sequences (CSI such as a colour, OSC such as a
# window title or a link, the two-character ones), then any other control character (C0
# but newline and tab, DEL, C1).
_CONTROLS = re.compile("(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
                       "|(?:\x1b\\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
                       "|\x1b[@-Z\\\\-_]"
                       "|[\x00-\x08\x0b-\x1f\x7f-\x9f]")

Paint = Callable[[str, str], str]
"""``paint(text, style)``: ``text`` coloured for ``style`` (``path``, ``line``, ``match``,
``id``, ``dim``), or as it is when colours are off."""

_SGR = {"path": "35", "line": "32", "match": "1;31", "id": "1", "dim": "2"}


def no_paint(text: str, style: str) -> str:
    return text


def ansi_paint(text: str, style: str) -> str:
    """``text`` between the SGR codes of ``style`` (the colours ripgrep uses)."""
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if text else text


def clean(text: str | None) -> str:
    """``text`` without control characters; newlines and tabs are kept."""
    if not text:
        return ""
    return _CONTROLS.sub("", text.replace("\r\n", "\n"))


def flat(text: str | None) -> str:
    """:func:`clean` on one line: runs of whitespace (newlines too) become one space."""
    return " ".join(clean(text).split())


def cells(text: str) -> int:
    """The columns ``text`` takes on a terminal (a CJK character takes two)."""
    from rich.cells import cell_len

    return cell_len(text)


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, with ``…`` when something was cut."""
    if cells(text) <= width:
        return text
    if width <= 1:
        return ""
    out, used = [], 0
    for ch in text:
        w = cells(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + "…"


def highlight(text: str, terms: Sequence[str], paint: Paint) -> str:
    """``text`` with the matched terms painted."""
    from genesis_git.search.explain import highlight_spans

    if paint is no_paint:
        return text
    out, last = [], 0
    for start, end in highlight_spans(text, terms):
        out += [text[last:start], paint(text[start:end], "match")]
        last = end
    return "".join([*out, text[last:]])


def best_line(text: str, start_line: int, terms: Sequence[str], name: str | None = None
              ) -> tuple[int, str]:
    """The line of a chunk that holds the most matched terms (the first on a tie): its number
    in the file and its text, whitespace collapsed.  With ``name`` (an identifier searched),
    the line that defines it or holds it as written, when one does
    (:func:`~genesis_git.search.textlines.name_line`)."""
    from genesis_git.search.explain import highlight_spans
    from genesis_git.search.textlines import name_line

    raw_lines = text.splitlines()
    at = name_line(raw_lines, name) if name else None
    if at is not None:
        return start_line + at, flat(raw_lines[at])
    best: tuple[int, int, str] = (-1, start_line, "")
    for i, raw in enumerate(raw_lines):
        line = flat(raw)
        if not line:
            continue
        score = len(highlight_spans(line, terms))
        if score > best[0]:
            best = (score, start_line + i, line)
    return best[1], best[2]


def _snippet(line: str, terms: Sequence[str], width: int) -> str:
    """The part of ``line`` around its first match that fits ``width`` columns."""
    from genesis_git.search.explain import highlight_spans

    if cells(line) <= width:
        return line
    spans = highlight_spans(line, terms)
    late = spans and cells(line[:spans[0][1]]) > width - 10  # the first match would be cut
    start = max(0, spans[0][0] - 8) if late else 0
    return ("…" + fit(line[start:], width - 1)) if start else fit(line, width)


def grep_line(path: str, line_no: int, text: str, tail: str, terms: Sequence[str],
              width: int, paint: Paint) -> str:
    """``path:line: text  tail``: the path, the number and the tail (type and score) whole,
    ``text`` cut to what is left of ``width``, the matched terms painted.  When a long path
    leaves less than 20 columns, the text goes on a second line, indented."""
    head = f"{path}:{line_no}:"
    where = f"{paint(path, 'path')}:{paint(str(line_no), 'line')}:"
    end = f"  {paint(tail, 'dim')}" if tail else ""
    room = width - cells(head) - cells(tail) - 3
    if room >= 20 or not text:
        shown = _snippet(text, terms, max(room, 20))
        return f"{where} {highlight(shown, terms, paint)}{end}".rstrip()
    if cells(head) + cells(tail) + 2 <= width:
        shown = _snippet(text, terms, width - 4)
        return f"{where}{end}\n    {highlight(shown, terms, paint)}"
    shown = _snippet(text, terms, max(20, width - cells(tail) - 6))
    return f"{where}\n    {highlight(shown, terms, paint)}{end}"


def search_lines(result: Any, files: bool, explain: bool, width: int,
                 paint: Paint = no_paint) -> list[str]:
    """A search for a terminal: one grep-like line per result (per file with ``files``), the
    breakdown indented under it with ``explain``."""
    from genesis_git.search.files import group_by_file
    from genesis_git.text.quoting import quote_path

    rrf_k = int(result.stats.get("rrf_k", 60))
    out: list[str] = []
    if files:
        for fh in group_by_file(result.hits):
            best = fh.chunks[0]
            ranges = ", ".join(f"{c.start_line}-{c.end_line}" for c in fh.chunks)
            out.append(grep_line(quote_path(fh.path), best.start_line, f"lines {ranges}",
                                 f"{fh.artifact_type} {fh.score:.4f}", [], width, paint))
            if explain:
                out += _why(best, rrf_k, result.mode)
        return out
    for h in result.hits:
        line_no, text = best_line(h.text, h.start_line, h.matched_terms, h.name)
        out.append(grep_line(quote_path(h.path), line_no, text,
                             f"{h.artifact_type} {h.score:.4f}", h.matched_terms, width, paint))
        if explain:
            section = flat(h.section or h.symbol)
            out.append(f"    lines {h.start_line}-{h.end_line}"
                       + (f", in {section}" if section else ""))
            out += _why(h, rrf_k, result.mode)
    return out


def _why(hit: Any, rrf_k: int, mode: str) -> list[str]:
    from genesis_git.search.explain import explain_lines

    return [f"    matched: {', '.join(hit.matched_terms) or '-'}",
            *(f"    {line}" for line in explain_lines(hit.breakdown, rrf_k, mode))]


def story_rows(rows: list[dict[str, Any]], paint: Paint = no_paint,
               projects: bool = False) -> list[str]:
    """Stories for a terminal, one line each: the id, status and counts aligned, the title
    (whole, as data) last."""
    if not rows:
        return []
    wid = max(len(r["story_id"]) for r in rows)
    wst = max(len(r["status"]) for r in rows)
    out = []
    for r in rows:
        where = f"  {','.join(r['projects'])}" if projects else ""
        out.append(f"{paint(r['story_id'].ljust(wid), 'id')}  {r['status']:<{wst}}  "
                   f"{r['commits']:>3} commits  {r['artifacts']:>3} notes  "
                   f"{(r['updated_at'] or '')[:16].replace('T', ' ')}{where}  "
                   f"{flat(r['title'])}".rstrip())
    return out
