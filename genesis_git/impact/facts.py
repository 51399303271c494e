"""Impact's per-blob facts (:mod:`genesis_git.index.facts`): loaded from the store, and
prepared here only for a blob that an older version cached without them.

A blob chunked by this version got its facts where it was chunked; a blob of
an older cache gets them on demand in bounded batches, read from its packs,
and keeps them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from genesis_git.index.cache import chunk_texts
from genesis_git.index.facts import FACTS_VERSION, BlobFacts, ChunkText, compute
from genesis_git.store import blobs

__all__ = ["FACTS_VERSION", "BlobFacts", "compute", "ensure", "load", "missing"]

_BATCH_BLOBS = 200
_IN_SQL = 500


def _parts(ids: list[int], size: int = _IN_SQL) -> Iterable[list[int]]:
    for i in range(0, len(ids), size):
        yield ids[i:i + size]


def missing(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> list[int]:
    """Blobs with chunks whose facts are absent or of another version (a blob without chunks
    has none to prepare)."""
    wanted = sorted({int(b) for b in blob_ids})
    out: list[int] = []
    for part in _parts(wanted):
        out.extend(blobs.without_facts(conn, part, FACTS_VERSION))
    return out


def ensure(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> int:
    """Prepare the facts of the blobs that lack them, a batch at a time; the number prepared."""
    todo = missing(conn, blob_ids)
    done = 0
    for part in _parts(todo, _BATCH_BLOBS):
        texts = chunk_texts(conn, part)
        chunks: dict[int, list[ChunkText]] = {b: [] for b in part}
        for bid, start, end, kind, symbol, section in blobs.chunk_lines(conn, part):
            chunks[bid].append((start, end, kind, symbol, texts[bid][len(chunks[bid])], section))
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
