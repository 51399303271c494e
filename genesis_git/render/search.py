"""Search results as JSON (a stable schema), as a Markdown context block, as plain lines
for a pipe, as a table for a terminal, and as the MCP tool's short text.

JSON, ``schema`` 1.  Chunk level (the default)::

    {"schema": 1, "query": "...", "mode": "hybrid", "level": "chunk", "session": "s-…",
     "terms": [{"term": "订单", "weight": 1.0, "origin": "query"}, ...],
     "warnings": [],
     "results": [{"path", "start_line", "end_line", "section", "symbol", "kind", "type",
                  "component", "owner", "staleness", "score", "matched_terms",
                  "breakdown": {"bm25", "vector", "rrf", "boosts": {"path"},
                                "lexical_rank", "vector_rank", "terms", "path_terms"},
                  "chunk_id", "text"}, ...]}

File level (``--files``): ``"level": "file"`` and every result is
``{"path", "score", "type", "component", "owner", "chunks": [chunk objects
without "path"]}``.  Scores are rounded to 6 decimals; keys never disappear
(a value that does not apply is ``null``).
"""

from __future__ import annotations

from typing import Any

from genesis_git.render.terminal import Paint, clean, flat, highlight, no_paint
from genesis_git.search.files import group_by_file
from genesis_git.search.results import SearchResult

SCHEMA_VERSION = 1

_LANG = {
    ".py": "python", ".pyi": "python", ".md": "markdown", ".rst": "rst", ".sql": "sql",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript",
    ".tsx": "tsx", ".jsx": "jsx", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml", ".html": "html", ".css": "css", ".scss": "scss", ".sh": "bash",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".php": "php",
    ".c": "c", ".h": "c", ".cpp": "cpp", ".cs": "csharp", ".swift": "swift", ".vue": "vue",
    ".proto": "protobuf", ".graphql": "graphql", ".xml": "xml", ".ini": "ini", ".cfg": "ini",
}


def to_json(result: SearchResult, files: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "query": result.query,
        "mode": result.mode,
        "level": "file" if files else "chunk",
        "session": result.session_id,
        "terms": [{"term": t.term, "weight": t.weight, "origin": t.origin} for t in result.terms],
        "warnings": list(result.warnings),
    }
    if files:
        out["results"] = [f.as_dict() for f in group_by_file(result.hits)]
    else:
        out["results"] = [h.as_dict() for h in result.hits]
    return out


def language(path: str) -> str:
    base = path.rsplit("/", 1)[-1].lower()
    dot = base.rfind(".")
    return _LANG.get(base[dot:], "") if dot > 0 else ""


def fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _block(path: str, text: str) -> list[str]:
    f = fence(text)
    return [f + language(path), clean(text).rstrip("\n"), f]


def to_markdown(result: SearchResult, files: bool = False) -> str:
    """A context block to paste into an LLM prompt: paths, line ranges, fenced text."""
    from genesis_git.text.quoting import quote_path

    n_files = len({h.path for h in result.hits})
    lines = [f"# Context for: {flat(result.query)}", "",
             f"{len(result.hits)} excerpts from {n_files} files of the working tree, "
             f"best first ({result.mode} search).", ""]
    if not result.hits:
        lines += [f"_{w}_" for w in result.warnings] or ["_no results_"]
        return "\n".join(lines) + "\n"
    if files:
        for fh in group_by_file(result.hits):
            lines += [f"## {quote_path(fh.path)} ({fh.artifact_type})", ""]
            for h in fh.chunks:
                title = f"### lines {h.start_line}-{h.end_line}"
                if h.section or h.symbol:
                    title += f": {flat(h.section or h.symbol)}"
                lines += [title, "", *_block(h.path, h.text), ""]
    else:
        for h in result.hits:
            title = f"## {quote_path(h.path)}:{h.start_line}-{h.end_line}"
            if h.section or h.symbol:
                title += f": {flat(h.section or h.symbol)}"
            lines += [title + f" ({h.artifact_type})", "", *_block(h.path, h.text), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def plain_lines(result: SearchResult, files: bool = False, explain: bool = False,
                paint: Paint = no_paint) -> list[str]:
    """One tab-separated line per result (per file with ``files``), for a pipe; ``paint``
    colours the path, the lines and the matched terms (``--color always``)."""
    from genesis_git.search.explain import explain_lines, snippet
    from genesis_git.text.quoting import quote_path

    rrf_k = int(result.stats.get("rrf_k", 60))
    out: list[str] = []
    if files:
        for fh in group_by_file(result.hits):
            ranges = ", ".join(f"{h.start_line}-{h.end_line}" for h in fh.chunks)
            out.append(f"{paint(quote_path(fh.path), 'path')}\t{fh.score:.6f}\t{fh.artifact_type}\tlines {ranges}")
            if explain:
                best = fh.chunks[0]
                out.append(f"    matched: {', '.join(best.matched_terms) or '-'}")
                out += [f"    {line}" for line in explain_lines(best.breakdown, rrf_k, result.mode)]
        return out
    for h in result.hits:
        text = flat(snippet(clean(h.text), h.matched_terms, 120, h.name))
        out.append(f"{paint(quote_path(h.path), 'path')}:"
                   f"{paint(f'{h.start_line}-{h.end_line}', 'line')}\t{h.score:.6f}\t"
                   f"{h.artifact_type}\t{flat(h.section or h.symbol) or '-'}\t"
                   f"{highlight(text, h.matched_terms, paint)}")
        if explain:
            out.append(f"    matched: {', '.join(h.matched_terms) or '-'}")
            out += [f"    {line}" for line in explain_lines(h.breakdown, rrf_k, result.mode)]
    return out


def stats_line(result: SearchResult) -> str:
    """What was searched (``-v``): files, chunks, candidates per list, the query's terms."""
    st = result.stats
    cands = ", ".join(f"{k} {v}" for k, v in (st.get("candidates") or {}).items()) or "none"
    terms = ", ".join(flat(t.term) for t in result.terms) or "-"
    return (f"searched {st.get('files', 0)} files ({st.get('rows', 0)} chunks) in {result.mode} "
            f"mode; candidates: {cands}; terms: {terms}")


def summary(data: dict[str, Any]) -> str:
    """The short text of the JSON (:func:`to_json`) beside it: one line per result."""
    from genesis_git.render.lines import with_warnings
    from genesis_git.text.quoting import quoted

    head = f"{len(data['results'])} results for {quoted(flat(data['query']))} ({data['mode']})"
    lines = [head]
    for r in data["results"]:
        if data["level"] == "file":
            ranges = ", ".join(f"{c['start_line']}-{c['end_line']}" for c in r["chunks"])
            lines.append(f"{r['path']}  {r['score']:.4f}  {r['type']}  lines {ranges}")
        else:
            where = flat(r["section"] or r["symbol"])
            first = flat(r["text"])[:100]
            lines.append(f"{r['path']}:{r['start_line']}-{r['end_line']}  {r['score']:.4f}  "
                         f"{r['type']}  {where}  | {first}")
    return "\n".join(with_warnings(lines, data["warnings"]))
