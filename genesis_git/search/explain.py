"""Why a result ranked where it did: matched terms, per-term shares, snippets.

``explain_lines`` answers "why did this rank first?" in words::

    lexical 7.91 (rank 1) = bm25 4.21 [controller 2.11, order 2.10] + path 3.32 [order] + file 0.38
    path    3.320 (rank 2)
    vector  0.412 (rank 3)
    rrf     1/(60+1) + 1/(60+2) + 1/(60+3) = 0.048395
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from genesis_git.search.termindex import Stats
from genesis_git.search.textlines import name_line
from genesis_git.text.tokens import QueryTerm


def matched(terms: Sequence[QueryTerm], tokens: Iterable[str]) -> list[str]:
    """The query terms found among ``tokens``, in query order."""
    have = set(tokens)
    return [t.term for t in terms if t.term in have]


def contributions(stats: Stats, tokens: Sequence[str]) -> dict[str, float]:
    """Each matched term's share of a document's BM25 score, largest first."""
    tf = Counter(tokens)
    dl = float(len(tokens))
    shares = {t.term: stats.contribution(t, float(tf[t.term]), dl)
              for t in stats.terms if tf.get(t.term)}
    return dict(sorted(((k, v) for k, v in shares.items() if v > 0),
                       key=lambda kv: (-kv[1], kv[0])))


def _fmt_terms(shares: dict[str, Any]) -> str:
    if not shares:
        return ""
    return " [" + ", ".join(f"{k} {v:.2f}" for k, v in shares.items()) + "]"


def explain_lines(breakdown: dict[str, Any], rrf_k: int, mode: str) -> list[str]:
    """Human-readable lines of a hit's score breakdown."""
    lines: list[str] = []
    bm = breakdown.get("bm25")
    boosts = breakdown.get("boosts") or {}
    path = boosts.get("path", 0.0)
    whole = boosts.get("file", 0.0)
    ranks = {name: breakdown.get(f"{name}_rank") for name in ("lexical", "path", "vector")}

    def rank(name: str) -> str:
        return f" (rank {ranks[name]})" if ranks[name] else " (not ranked)"

    if breakdown.get("text") is not None:  # a name the index keeps no token of (has(), S)
        from genesis_git.search.textlines import DEFINING_LINE

        lines.append(f"text    {breakdown['text']:.1f} = lines with the name (definition "
                     f"{DEFINING_LINE:g}, indented {DEFINING_LINE / 10:g}, use 1)")
    elif bm is not None:
        text = (f"lexical {bm + path + whole:.3f}{rank('lexical')} = bm25 {bm:.3f}"
                f"{_fmt_terms(breakdown.get('terms') or {})}")
        if path:
            path_terms = breakdown.get("path_terms") or []
            text += f" + path {path:.3f}" + (f" [{', '.join(path_terms)}]" if path_terms else "")
        if whole:
            text += f" + file {whole:.3f}"
        lines.append(text)
    if mode == "hybrid" and (path or ranks["path"]):
        lines.append(f"path    {path:.3f}{rank('path')}")
    vec = breakdown.get("vector")
    if vec is not None:
        lines.append(f"vector  {vec:.3f}{rank('vector')}")
    if mode == "hybrid" and breakdown.get("rrf") is not None:
        parts = [f"1/({rrf_k}+{r})" for r in ranks.values() if r]
        lines.append(f"rrf     {' + '.join(parts) or '0'} = {breakdown['rrf']:.6f}")
    if breakdown.get("exact"):  # a query that is one identifier (search/exact.py)
        lines.append(f"exact   {breakdown['exact']}")
    impact = breakdown.get("impact")
    if impact:  # --files: impact's reasons for the file
        shares = sorted(impact.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append("impact  " + " + ".join(f"{name} {value:.3f}" for name, value in shares))
    return lines


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def highlight_spans(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) spans of ``text`` where a matched term occurs.

    Overlapping matches merge, so the bigrams 订单 and 单表 light up 订单表.
    """
    low = _norm(text)
    if len(low) != len(text):  # normalisation changed the length: match the raw text
        low = text.lower()
    found: list[tuple[int, int]] = []
    for term in set(terms):
        if len(term) < 2 and term.isascii():
            continue
        found.extend(m.span() for m in re.finditer(re.escape(term), low))
    merged: list[tuple[int, int]] = []
    for s, e in sorted(found):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _distinct(text: str, terms: Sequence[str]) -> int:
    low = _norm(text)
    return sum(1 for t in set(terms) if t in low)


def snippet(text: str, terms: Sequence[str], width: int = 160, name: str | None = None) -> str:
    """The line of ``text`` with the most matched terms, whitespace collapsed, cut to ``width``;
    with ``name`` (an identifier searched), the line that defines it or holds it as written
    (:func:`~genesis_git.search.textlines.name_line`), when one does."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    at = name_line(lines, name) if name else None
    best = at if at is not None else max(range(len(lines)),
                                         key=lambda i: (_distinct(lines[i], terms), -i))
    line = lines[best]
    if len(line) <= width:
        return line
    spans = highlight_spans(line, terms)
    start = max(0, spans[0][0] - width // 4) if spans else 0
    cut = line[start:start + width]
    return ("…" if start else "") + cut + ("…" if start + width < len(line) else "")
