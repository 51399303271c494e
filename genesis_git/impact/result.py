"""Turn a ranking into the impact result: impacts with evidence lines, and the ranked files.

The shape (the same for both modes)::

    {"requirement": str, "mode": "cross-reference" | "rag",
     "impacts": [{"target", "kind": "file"|"symbol"|"field", "path", "lines": [start, end],
                  "type": "modify"|"add"|"delete", "detail", "evidence": [str],
                  "score", "reasons": {signal: contribution}}],
     "files": [{"path", "score", "reasons"}]}
"""

from __future__ import annotations

from typing import Any

from genesis_git.impact.corpus import ChunkDoc, Corpus, FileDoc
from genesis_git.impact.graph import Table, column_tokens
from genesis_git.impact.rank import FileScore, Ranking
from genesis_git.impact.signals import QueryInfo
from genesis_git.text.tokens import tokenize

EVIDENCE_LINES = 3
LINE_CHARS = 160

_SIGNAL_WORDS = {
    "text": "matches the requirement's terms",
    "path": "its path names the requirement's terms",
    "named": "the requirement names this file",
    "definition": "defines what the requirement names",
    "graph": "references the affected code",
    "fields": "mirrors the columns of",  # + " table <name>"
    "cochange": "changed together with the affected files",
    "churn": "changes often",
    "story": "touched by similar stories",
    "llm": "named by the engine",
}


def chunk_score(chunk: ChunkDoc, weights: dict[str, float]) -> float:
    seen = {t for t in chunk.tokens if t in weights}
    return sum(weights[t] for t in seen)


def _symbol_named(chunk: ChunkDoc, weights: dict[str, float]) -> bool:
    if not chunk.symbol:
        return False
    for part in chunk.symbol.split("."):
        toks = tokenize(part)
        if toks and toks[0] in weights:
            return True
    return False


def best_chunk(doc: FileDoc, weights: dict[str, float]) -> ChunkDoc | None:
    """The chunk that carries the most query weight; a chunk defining a named symbol first."""
    best: tuple[tuple[bool, float], ChunkDoc] | None = None
    for c in doc.chunks:
        s = chunk_score(c, weights)
        if s <= 0:
            continue
        key = (_symbol_named(c, weights), s)
        if best is None or key > best[0]:
            best = (key, c)
    return best[1] if best else None


def evidence_lines(doc: FileDoc, weights: dict[str, float], n: int = EVIDENCE_LINES) -> list[str]:
    """The ``n`` lines of the file that carry the most query weight: ``path:line: text``."""
    scored: list[tuple[float, int, str]] = []
    seen_lines: set[int] = set()
    for c in doc.chunks:
        for offset, line in enumerate(c.text.splitlines()):
            lineno = c.start_line + offset
            if lineno in seen_lines or not line.strip():
                continue
            seen_lines.add(lineno)
            toks = set(tokenize(line))
            s = sum(w for t, w in weights.items() if t in toks)
            if s > 0:
                scored.append((s, lineno, line.strip()))
    scored.sort(key=lambda x: (-x[0], x[1]))
    out = []
    for _, lineno, text in sorted(scored[:n], key=lambda x: x[1]):
        if len(text) > LINE_CHARS:
            text = text[:LINE_CHARS - 1] + "…"
        out.append(f"{doc.path}:{lineno}: {text}")
    return out


def _detail(f: FileScore, q: QueryInfo) -> str:
    parts = []
    for signal, value in sorted(f.reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        if value <= 0 or signal not in _SIGNAL_WORDS:
            continue
        words = _SIGNAL_WORDS[signal]
        extra = f.notes.get(signal)
        if signal == "fields" and extra:
            words += " table " + ", ".join(extra[:3])
        elif extra:
            words += " (" + ", ".join(extra[:3]) + ")"
        parts.append(words)
        if len(parts) == 2:
            break
    if "changelog" in f.flags:
        parts.append("changelog: ranked by its own text only")
    return "; ".join(parts)


def _note_evidence(f: FileScore) -> list[str]:
    out = []
    if f.notes.get("graph"):
        out.append("references: " + ", ".join(f.notes["graph"][:3]))
    if f.notes.get("fields"):
        out.append("mirrors the columns of table " + ", ".join(f.notes["fields"][:3]))
    if f.notes.get("cochange"):
        out.append("changed together with: " + ", ".join(f.notes["cochange"][:3]))
    if f.notes.get("story"):
        out.append("stories: " + ", ".join(f.notes["story"][:3]))
    return out


def _field_impacts(q: QueryInfo, tables: list[Table], f: FileScore) -> list[dict[str, Any]]:
    """``table.field`` impacts at the table's definitions; a new migration next to old ones."""
    out: list[dict[str, Any]] = []
    for table in tables:
        if f.path not in table.lines:
            continue
        cols = set(column_tokens(table))
        lines = table.lines[f.path]
        for tok, ident in q.ident_tokens.items():
            if tok == table.token:
                continue
            exists = tok in cols
            if q.intent == "delete" and exists:
                kind, verb = "delete", f"remove column {ident} from table {table.name}"
            elif exists:
                kind, verb = "modify", f"change column {ident} of table {table.name}"
            elif q.intent == "add" or q.mentions_field:
                kind, verb = "add", f"add column {ident} to table {table.name}"
            else:
                continue
            base = {"score": f.score, "reasons": dict(f.reasons)}
            if table.kinds.get(f.path) == "alter":
                folder = f.path.rsplit("/", 1)[0] + "/" if "/" in f.path else ""
                out.append({
                    "target": f"{folder}(new migration)", "kind": "file", "path": folder,
                    "lines": [], "type": "add",
                    "detail": f"a new migration to {verb} (as {f.path} does for earlier changes)",
                    "evidence": [f"{f.path}:{lines[0]}: ALTER TABLE {table.name} …"], **base})
                continue
            out.append({
                "target": f"{table.name}.{ident}", "kind": "field", "path": f.path,
                "lines": [lines[0], lines[1]], "type": kind, "detail": verb,
                "evidence": [f"{f.path}:{lines[0]}: table {table.name} is defined here"], **base})
    return out


def _mirror_chunk(doc: FileDoc, tables: list[Table], weights: dict[str, float]
                  ) -> ChunkDoc | None:
    """The chunk that mentions the most columns of the named tables (a schema class, a form)."""
    cols = {c for t in tables for c in column_tokens(t)}
    best: tuple[tuple[int, float], ChunkDoc] | None = None
    for c in doc.chunks:
        key = (len(cols & set(c.tokens)), chunk_score(c, weights))
        if key[0] and (best is None or key > best[0]):
            best = (key, c)
    return best[1] if best else None


def file_impact(f: FileScore, doc: FileDoc, q: QueryInfo, tables: list[Table] | None = None
                ) -> dict[str, Any]:
    chunk = None
    if tables and "fields" in f.reasons:
        chunk = _mirror_chunk(doc, tables, q.weights)
    chunk = chunk or best_chunk(doc, q.weights)
    named_symbol = None
    if chunk is not None and chunk.symbol:
        named_symbol = chunk.symbol
    kind = "symbol" if named_symbol else "file"
    if chunk is not None:
        lines = [chunk.start_line, chunk.end_line]
    elif doc.chunks:
        lines = [doc.chunks[0].start_line, doc.chunks[-1].end_line]
    else:
        lines = []
    sym_tokens = set(tokenize(named_symbol.split(".")[-1])) if named_symbol else set()
    typ = "delete" if q.intent == "delete" and sym_tokens & set(q.ident_tokens) else "modify"
    return {
        "target": named_symbol or doc.path, "kind": kind, "path": doc.path, "lines": lines,
        "type": typ, "detail": _detail(f, q),
        "evidence": evidence_lines(doc, q.weights) + _note_evidence(f),
        "score": f.score, "reasons": dict(f.reasons)}


def cross_reference_result(requirement: str, q: QueryInfo, corpus: Corpus, ranking: Ranking,
                           k: int) -> dict[str, Any]:
    impacts: list[dict[str, Any]] = []
    top = ranking.files[:k]
    for f in top:
        doc = corpus.files[f.path]
        impacts.extend(_field_impacts(q, ranking.tables, f))
        impacts.append(file_impact(f, doc, q, ranking.tables))
    return {
        "requirement": requirement,
        "mode": "cross-reference",
        "impacts": impacts,
        "files": [{"path": f.path, "score": f.score, "reasons": dict(f.reasons)} for f in top],
    }
