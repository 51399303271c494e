"""Search results as JSON (a stable schema) and as a Markdown context block.

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
    return [f + language(path), text.rstrip("\n"), f]


def to_markdown(result: SearchResult, files: bool = False) -> str:
    """A context block to paste into an LLM prompt: paths, line ranges, fenced text."""
    n_files = len({h.path for h in result.hits})
    lines = [f"# Context for: {result.query.strip()}", "",
             f"{len(result.hits)} excerpts from {n_files} files of the working tree, "
             f"best first ({result.mode} search).", ""]
    if not result.hits:
        lines += [f"_{w}_" for w in result.warnings] or ["_no results_"]
        return "\n".join(lines) + "\n"
    if files:
        for fh in group_by_file(result.hits):
            lines += [f"## {fh.path} ({fh.artifact_type})", ""]
            for h in fh.chunks:
                title = f"### lines {h.start_line}-{h.end_line}"
                if h.section or h.symbol:
                    title += f": {h.section or h.symbol}"
                lines += [title, "", *_block(h.path, h.text), ""]
    else:
        for h in result.hits:
            title = f"## {h.location}"
            if h.section or h.symbol:
                title += f": {h.section or h.symbol}"
            lines += [title + f" ({h.artifact_type})", "", *_block(h.path, h.text), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
