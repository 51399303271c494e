"""The sixth station of impact: evidence, computed once for the final ranking.

For the cross-reference, each of the ``k`` best files becomes an impact (the
chunk that carries the most query weight, or the one mirroring a named
table's columns; a symbol when that chunk defines one), preceded by the
``table.field`` impacts at a named table's definitions.  For an engine's
answer, each impact it names keeps its own evidence, or gets the lines of its
file that carry the most query weight.  The files are read in full
(:meth:`~genesis_git.impact.corpus.Corpus.read`) by the caller, once.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from genesis_git.impact.analyse import QueryInfo
from genesis_git.impact.anchors import in_code
from genesis_git.impact.combine import FileScore
from genesis_git.impact.corpus import ChunkDoc, FileDoc, best_chunk, chunk_score
from genesis_git.impact.graph import Table, column_tokens
from genesis_git.impact.result import Impact
from genesis_git.text.tokens import tokenize

EVIDENCE_LINES = 3
LINE_CHARS = 160

_SIGNAL_WORDS = {
    "text": "matches the requirement's terms",
    "path": "its path names the requirement's terms",
    "named": "the requirement names this file",
    "definition": "defines what the requirement names",
    "traceback": "the traceback or the error names it",  # + " (uses <variable>)"
    "graph": "references the affected code",
    "fields": "mirrors the columns of",  # + " table <name>"
    "cochange": "changed together with the affected files",
    "churn": "changes often",
    "recent": "changed by the last commits",
    "story": "touched by similar stories",
    "llm": "named by the engine",
}


def evidence_lines(doc: FileDoc, weights: dict[str, float], n: int = EVIDENCE_LINES,
                   within: ChunkDoc | None = None) -> list[str]:
    """The ``n`` lines of the file that carry the most query weight: ``path:line: text``
    (with ``within``, the lines of that chunk, when any of them carries weight)."""
    if within is not None:
        inside = evidence_lines(FileDoc(doc.path, doc.artifact_type, [within]), weights, n)
        if inside:
            return inside
    scored: list[tuple[float, int, str]] = []
    seen_lines: set[int] = set()
    for c in doc.chunks:
        if c.tokens and weights.keys().isdisjoint(c.tokens):
            continue  # no line of a chunk without a query term carries weight
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
    return [f"{doc.path}:{lineno}: {_cut(text)}"
            for _, lineno, text in sorted(scored[:n], key=lambda x: x[1])]


def _detail(f: FileScore, q: QueryInfo) -> str:
    parts = []
    for signal, value in sorted(f.reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        if value <= 0 or signal not in _SIGNAL_WORDS:
            continue
        words = _SIGNAL_WORDS[signal]
        extra = f.notes.get(signal)
        if signal == "fields" and extra:
            words += " table " + ", ".join(extra[:3])
        elif signal == "traceback" and extra:
            words += f" (uses {extra[0]})"
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


def _field_impacts(q: QueryInfo, tables: list[Table], f: FileScore) -> list[Impact]:
    """``table.field`` impacts at the table's definitions; a new migration next to old ones."""
    out: list[Impact] = []
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
            if table.kinds.get(f.path) == "alter":
                folder = f.path.rsplit("/", 1)[0] + "/" if "/" in f.path else ""
                what = (f"ALTER TABLE {table.name} …" if f.path.lower().endswith(".sql")
                        else f"a migration of {table.name}")
                out.append(Impact(
                    f"{folder}(new migration)", "file", folder, [], "add",
                    f"a new migration to {verb} (as {f.path} does for earlier changes)",
                    [f"{f.path}:{lines[0]}: {what}"], f.score, dict(f.reasons)))
                continue
            out.append(Impact(
                f"{table.name}.{ident}", "field", f.path, [lines[0], lines[1]], kind, verb,
                [f"{f.path}:{lines[0]}: table {table.name} is defined here"], f.score,
                dict(f.reasons)))
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


def _using(doc: FileDoc, name: str) -> tuple[ChunkDoc | None, list[str]]:
    """The first chunk whose code uses ``name`` (the variable an error names) and, within
    it, the lines that do (``path:line: text``, at most :data:`EVIDENCE_LINES`)."""
    for c in doc.chunks:
        if in_code(name, c.text):
            lines = [f"{doc.path}:{c.start_line + i}: {_cut(line.strip())}"
                     for i, line in enumerate(c.text.splitlines()) if in_code(name, line)]
            return c, lines[:EVIDENCE_LINES]
    return None, []


def _cut(text: str) -> str:
    return text[:LINE_CHARS - 1] + "…" if len(text) > LINE_CHARS else text


def file_impact(f: FileScore, doc: FileDoc, q: QueryInfo, tables: list[Table] | None = None,
                anchors: Container[str] | None = None) -> Impact:
    chunk = None
    uses: list[str] = []
    if tables and "fields" in f.reasons:
        chunk = _mirror_chunk(doc, tables, q.weights)
    elif "traceback" in f.reasons and f.notes.get("traceback"):
        chunk, uses = _using(doc, f.notes["traceback"][0])
    chunk = chunk or best_chunk(doc, q.weights, anchors)
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
    return Impact(named_symbol or doc.path, kind, doc.path, lines, typ, _detail(f, q),
                  (uses or evidence_lines(doc, q.weights, within=chunk if named_symbol else None))
                  + _note_evidence(f), f.score, dict(f.reasons))


def cross_reference_impacts(q: QueryInfo, tables: list[Table], shown: list[FileScore],
                            docs: Mapping[str, FileDoc], anchors: Container[str] | None = None,
                            confidence: Sequence[float] | None = None) -> list[Impact]:
    """The impacts of the files ``shown`` (``docs``: those files read in full; ``anchors``:
    the query's symbol anchors; ``confidence``: that of each file shown)."""
    impacts: list[Impact] = []
    migrations: set[tuple[str, str]] = set()  # one new migration per folder and change
    for i, f in enumerate(shown):
        mine = _field_impacts(q, tables, f) + [file_impact(f, docs[f.path], q, tables, anchors)]
        for item in mine:
            item.confidence = confidence[i] if confidence else 0.0
            if item.target.endswith("(new migration)"):
                key = (item.target, item.detail.split(" (as ", 1)[0])
                if key in migrations:
                    continue
                migrations.add(key)
            impacts.append(item)
    return impacts


def engine_impacts(items: list[dict[str, Any]], scores: list[float], ranked: list[FileScore],
                   q: QueryInfo, docs: Mapping[str, FileDoc]) -> list[Impact]:
    """The engine's impacts with their ``llm`` signal (``scores``, one per item) added to the
    reasons of their file; an impact without evidence gets its file's best lines."""
    by_path = {f.path: f for f in ranked}
    out: list[Impact] = []
    for item, s in zip(items, scores, strict=True):
        path = item["path"]
        base = by_path.get(path)
        reasons = dict(base.reasons) if base else {}
        reasons["llm"] = s
        evidence = item["evidence"]
        if not evidence and path in docs:
            evidence = evidence_lines(docs[path], q.weights)
        out.append(Impact(item["target"], item["kind"], path, item["lines"] or [], item["type"],
                          item["detail"], evidence, round(sum(reasons.values()), 4), reasons))
    return out
