"""What impact reads of a blob besides its tokens, prepared once and kept in the cache.

An impact investigation ranks every file of the session.  The term
statistics come from the session's search base (its postings); the rest is
read from a blob's text once and kept in ``rag_blob_facts``, keyed by the
blob row like its chunks (so it goes with the blob on ``cache gc``):

* the tables its chunks define or alter, with their columns and lines;
* the methods of each class chunk (name and line);
* the imports it makes (Python modules with names, JS/TS relative specifiers),
  resolved against the session's paths only when a file is asked about;
* whether its head carries a "generated" mark.

Blobs without facts (a new store, an edit) get them on demand in bounded
batches; the background build after ``session start`` prepares them too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from genesis_git.db import blobs
from genesis_git.impact.graph import (
    TableFact,
    class_methods,
    js_import_specs,
    py_import_specs,
    tables_in_text,
)
from genesis_git.impact.signals import has_generated_mark

FACTS_VERSION = 2  # 2: what every call reads on a line of its own
_BATCH_BLOBS = 200
_IN_SQL = 500

MethodKey = tuple[int, int, str]  # a class chunk: start line, end line, symbol


@dataclass
class BlobFacts:
    """A blob's facts.  Loaded from the store, only ``generated`` and ``tables`` are
    decoded; the rest stays one string (``raw``) until :meth:`full` is asked for, so
    that a session's facts cost about their stored size in memory."""

    generated: bool = False
    tables: list[TableFact] = field(default_factory=list)
    methods: dict[MethodKey, list[tuple[str, int]]] = field(default_factory=dict)
    py_imports: list[tuple[str, list[str]]] = field(default_factory=list)
    js_imports: list[str] = field(default_factory=list)
    # the chunks that carry a symbol, in their order: start, end, kind, symbol, section
    symbols: list[tuple[int, int, str, str, str | None]] = field(default_factory=list)
    raw: str | None = None  # methods, imports and symbols, not decoded yet

    def dumps(self) -> str:
        """Two JSON texts on two lines: what every call reads, then the rest."""
        full = self.full()
        head = json.dumps({"g": int(full.generated), "t": [list(t) for t in full.tables]},
                          ensure_ascii=False, separators=(",", ":"))
        body = json.dumps({
            "m": [[k[0], k[1], k[2], [list(x) for x in v]] for k, v in full.methods.items()],
            "p": [[m, n] for m, n in full.py_imports], "j": full.js_imports,
            "s": [list(x) for x in full.symbols],
        }, ensure_ascii=False, separators=(",", ":"))
        return head + "\n" + body  # JSON never holds a raw line break

    @classmethod
    def loads(cls, text: str) -> BlobFacts:
        head, _, body = text.partition("\n")
        d = json.loads(head)
        return cls(bool(d["g"]), [(t[0], int(t[1]), int(t[2]), list(t[3]), t[4]) for t in d["t"]],
                   raw=body)

    def full(self) -> BlobFacts:
        """The facts with everything decoded (``self`` when nothing is left to decode)."""
        if self.raw is None:
            return self
        d = json.loads(self.raw)
        return BlobFacts(
            self.generated, self.tables,
            {(int(m[0]), int(m[1]), str(m[2])): [(str(x[0]), int(x[1])) for x in m[3]]
             for m in d["m"]},
            [(str(m), list(n)) for m, n in d["p"]], list(d["j"]),
            [(x[0], x[1], x[2], x[3], x[4]) for x in d["s"]])

    def may_name(self, wanted: set[str] | None) -> bool:
        """``False`` only when no symbol or method of the blob can pass the graph's name
        test for ``wanted`` (a test on the undecoded text: no decoding for most blobs)."""
        if wanted is None or self.raw is None:
            return True
        if not self.raw.isascii():
            return True
        low = self.raw.lower().replace("_", "").replace("-", "")
        # a name passes when its key, the key less an "s", or "...ies" -> "...y" is wanted
        return any(w in low or (len(w) > 1 and w.endswith("y") and w[:-1] in low)
                   for w in wanted)


ChunkText = tuple[int, int, str, "str | None", str, "str | None"]  # start, end, kind, symbol,
# text, section


def compute(chunks: list[ChunkText]) -> BlobFacts:
    """The facts of one blob from its chunks (in their order; read in line order)."""
    ordered = sorted(chunks, key=lambda c: (c[0], c[1]))
    facts = BlobFacts()
    if not ordered:
        return facts
    facts.symbols = [(c[0], c[1], c[2], c[3], c[5]) for c in chunks if c[3] is not None]
    facts.generated = has_generated_mark(ordered[0][4][:600])
    for start, end, kind, symbol, text, _ in ordered:
        if kind == "class" and symbol:
            facts.methods[(start, end, symbol)] = class_methods(text, start)
        facts.tables.extend(tables_in_text(text, start))
    whole = "\n".join(c[4] for c in ordered)
    if "import" in whole:
        facts.py_imports = py_import_specs(whole)
    if "import" in whole or "require" in whole:
        facts.js_imports = js_import_specs(whole)
    return facts


def _parts(ids: list[int], size: int = _IN_SQL) -> Iterable[list[int]]:
    for i in range(0, len(ids), size):
        yield ids[i:i + size]


def missing(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> list[int]:
    """Blobs (ready ones, with chunks) whose facts are absent or of another version."""
    wanted = sorted({int(b) for b in blob_ids})
    out: list[int] = []
    for part in _parts(wanted):
        have = blobs.facts_present(conn, part, FACTS_VERSION)
        out.extend(b for b in part if b not in have)
    return out


def ensure(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> int:
    """Prepare the facts of the blobs that lack them, a batch at a time; the number prepared."""
    todo = missing(conn, blob_ids)
    done = 0
    for part in _parts(todo, _BATCH_BLOBS):
        chunks: dict[int, list[ChunkText]] = {b: [] for b in part}
        for bid, start, end, kind, symbol, text, section in blobs.chunk_fact_rows(conn, part):
            chunks[bid].append((start, end, kind, symbol, text, section))
        rows = [(b, FACTS_VERSION, compute(c).dumps()) for b, c in chunks.items()]
        blobs.write_facts(conn, rows)
        done += len(rows)
    return done


def load(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> dict[int, BlobFacts]:
    """The prepared facts of ``blob_ids`` (prepared now where missing)."""
    wanted = sorted({int(b) for b in blob_ids})
    ensure(conn, wanted)
    out: dict[int, BlobFacts] = {}
    for part in _parts(wanted):
        for bid, raw in blobs.read_facts(conn, part, FACTS_VERSION):
            out[bid] = BlobFacts.loads(raw)
    return out
