"""A small vector store in SQLite: chunks grouped by *scope*, exact cosine search.

This is the ``RagStore`` of the library API (docs/explanation/architecture.md): a
library user can keep chunks of any text (a project, a document set) under a scope name
and search them by vector. It needs nothing but the standard library and numpy, and
works with ``":memory:"``. The repository's own index lives in the session tables
(``rag_chunk_cache``); this store is for text that is not in a repository.

Vectors are stored as little-endian float32 bytes, as in the session index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS rag_store_chunks (
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    ord INTEGER NOT NULL,
    chunk TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    embedding BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_rag_store_scope ON rag_store_chunks(scope, ord);
"""


@dataclass(frozen=True)
class StoredChunk:
    """One search result: the chunk text, its cosine similarity and the metadata given to ``add``."""

    chunk: str
    score: float
    meta: dict[str, Any] = field(default_factory=dict)


def _as_bytes(vec: Sequence[float]) -> bytes:
    import numpy as np

    return np.asarray(vec, dtype="<f4").tobytes()


class RagStore:
    """Chunks and their vectors under a scope name, in one SQLite file (or ``":memory:"``)."""

    def __init__(self, db_path: str | Path):
        path = str(db_path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def reset_scope(self, scope: str) -> None:
        """Forget every chunk of ``scope``."""
        self.conn.execute("DELETE FROM rag_store_chunks WHERE scope=?", (scope,))

    def scopes(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT scope FROM rag_store_chunks ORDER BY scope")]

    def count(self, scope: str) -> int:
        row = self.conn.execute("SELECT COUNT(*) FROM rag_store_chunks WHERE scope=?", (scope,))
        return int(row.fetchone()[0])

    def add(self, scope: str, chunks: Sequence[str], embeddings: Sequence[Sequence[float]],
            metas: Sequence[dict[str, Any]] | None = None) -> int:
        """Append chunks with their vectors (and optional metadata) to ``scope``; returns how many."""
        return self._write(scope, chunks, embeddings, metas, replace=False)

    def replace(self, scope: str, chunks: Sequence[str], embeddings: Sequence[Sequence[float]],
                metas: Sequence[dict[str, Any]] | None = None) -> int:
        """``reset_scope`` then ``add``, in one transaction."""
        return self._write(scope, chunks, embeddings, metas, replace=True)

    def _write(self, scope: str, chunks: Sequence[str], embeddings: Sequence[Sequence[float]],
               metas: Sequence[dict[str, Any]] | None, *, replace: bool) -> int:
        if len(chunks) != len(embeddings):
            raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
        if metas is not None and len(metas) != len(chunks):
            raise ValueError(f"{len(chunks)} chunks but {len(metas)} metadata entries")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if replace:
                self.conn.execute("DELETE FROM rag_store_chunks WHERE scope=?", (scope,))
            start = self.conn.execute(
                "SELECT COALESCE(MAX(ord) + 1, 0) FROM rag_store_chunks WHERE scope=?",
                (scope,)).fetchone()[0]
            rows = [(scope, start + i, chunk,
                     json.dumps(metas[i] if metas is not None else {}, ensure_ascii=False,
                                sort_keys=True), _as_bytes(vec))
                    for i, (chunk, vec) in enumerate(zip(chunks, embeddings, strict=True))]
            self.conn.executemany(
                "INSERT INTO rag_store_chunks(scope, ord, chunk, meta, embedding) VALUES (?,?,?,?,?)",
                rows)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return len(rows)

    def search_scored(self, scope: str, query_vec: Sequence[float], k: int = 5) -> list[StoredChunk]:
        """The ``k`` chunks of ``scope`` most similar to ``query_vec`` (cosine), best first.

        Ties keep insertion order, so the result is deterministic.
        """
        import numpy as np

        if k <= 0:
            return []
        rows = self.conn.execute(
            "SELECT chunk, meta, embedding FROM rag_store_chunks WHERE scope=? ORDER BY ord",
            (scope,)).fetchall()
        if not rows:
            return []
        q = np.asarray(query_vec, dtype=np.float64)
        qn = float(np.linalg.norm(q))
        dim = q.shape[0]
        scores = []
        for _chunk, _meta, blob in rows:
            v = np.frombuffer(blob, dtype="<f4").astype(np.float64)
            if v.shape[0] != dim:
                raise ValueError(f"stored vector has {v.shape[0]} dimensions, the query {dim}")
            vn = float(np.linalg.norm(v))
            scores.append(float(v @ q) / (vn * qn) if vn and qn else 0.0)
        order = sorted(range(len(rows)), key=lambda i: (-scores[i], i))[:k]
        return [StoredChunk(rows[i][0], round(scores[i], 6), json.loads(rows[i][1]))
                for i in order]

    def search(self, scope: str, query_vec: Sequence[float], k: int = 5) -> list[str]:
        """The texts of the ``k`` most similar chunks (the library API's signature)."""
        return [hit.chunk for hit in self.search_scored(scope, query_vec, k)]

    def chunks(self, scope: str) -> list[StoredChunk]:
        """Every chunk of ``scope`` in insertion order (score 0)."""
        return [StoredChunk(r[0], 0.0, json.loads(r[1])) for r in self.conn.execute(
            "SELECT chunk, meta FROM rag_store_chunks WHERE scope=? ORDER BY ord", (scope,))]
