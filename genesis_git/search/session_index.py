"""The searchable state of one session: (path, chunk) rows over a cached chunk index.

A session maps paths to blobs, and chunks belong to blobs.  So the expensive
part of a search index (the postings of every chunk's tokens and the matrix
of its embeddings) depends only on *which blobs* the session maps, while
the cheap part (which path has which blob, its type, owner, component and
staleness) is read from ``rag_session_chunk_map`` on every search.

* The **base** is a :class:`ChunkSet` for the session's blobs plus a
  :class:`PathSet` for its paths, built from the blobs' packs
  (:mod:`~genesis_git.search.base.build`) and saved as
  ``<store>/search/<session>.idx`` (:mod:`~genesis_git.search.base.file`,
  memory-mapped when read).
* Blobs the session maps but the base lacks (an edit saved a second ago) go
  into a small in-memory **overlay** built on the spot; blobs the base has but
  the session no longer maps count zero times.  When the overlay grows past
  :data:`OVERLAY_MAX` chunks (or a quarter of the base), or more than half of
  the base is unused, the base is rebuilt and saved again.
* Every (path, chunk) pair is one *row*; a blob mapped by two paths gives two
  rows over one chunk, so statistics are those of the session, and a blob
  cached by another session or branch is never a row.

In one process the result is kept in memory for the same connection until
the store changes (``PRAGMA data_version`` sees other connections' commits,
``total_changes`` the connection's own); a long-lived process that serves
several repositories keeps the last :data:`MEMO_KEEP` of them.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from genesis_git.search.base import file as basefile
from genesis_git.search.base.build import ChunkSet, load_chunks, stamp, unique
from genesis_git.search.base.file import (
    CACHE_FORMAT,
    Base,
    PathSet,
    path_tokens,
    read_base,
    save_base,
    stream_base,
)
from genesis_git.search.termindex import Part
from genesis_git.search.texts import TextMemo
from genesis_git.store import sessionmap
from genesis_git.store import sessions as session_rows
from genesis_git.store.connect import search_base_path, store_file
from genesis_git.text.bm25 import norm

__all__ = ["CACHE_FORMAT", "Base", "ChunkSet", "PathSet", "SessionIndex", "clear_memory",
           "load_chunks", "path_tokens", "read_base", "save_base", "session_index",
           "stream_base"]

OVERLAY_MAX = 2000
_MEMO: OrderedDict[tuple[str, str, str],
                  tuple[sqlite3.Connection, tuple[int, int], SessionIndex]] = OrderedDict()
MEMO_KEEP = 4  # session indexes kept in memory, least recently used dropped first


@dataclass
class MapRows:
    """The session map, one entry per path that has at least one chunk."""

    paths: list[str]
    types: np.ndarray  # <U5
    components: list[str | None]
    owners: list[str | None]
    staleness: np.ndarray  # float64


@dataclass
class SessionIndex:
    session_id: str
    embedder: str
    chunk_parts: list[ChunkSet]
    chunk_mult: list[np.ndarray]
    path_parts: list[PathSet]
    path_mult: list[np.ndarray]
    rows_map: np.ndarray  # int64[R]: index into ``map``
    rows_chunk: np.ndarray  # int64[R]: unified chunk index (parts concatenated)
    rows_path: np.ndarray  # int64[R]: unified path index (parts concatenated)
    map: MapRows
    chunk_blob: np.ndarray  # int64[U]: unified blob of every unified chunk
    blob_mult: np.ndarray  # float64[B]: paths that map each unified blob
    rebuilt: bool = False
    _chunk_ids: np.ndarray | None = field(default=None, repr=False)
    _starts: np.ndarray | None = field(default=None, repr=False)
    _file_norm: np.ndarray | None = field(default=None, repr=False)
    texts: TextMemo = field(default_factory=TextMemo, repr=False)  # chunk texts read lately
    lineage: object = field(default=None, repr=False)  # the tree's class ancestry, once asked

    @property
    def n_rows(self) -> int:
        return int(self.rows_map.shape[0])

    def chunk_parts_mult(self) -> list[Part]:
        return [Part(c.content, m) for c, m in zip(self.chunk_parts, self.chunk_mult, strict=True)]

    def path_parts_mult(self) -> list[Part]:
        return [Part(p.index, m) for p, m in zip(self.path_parts, self.path_mult, strict=True)]

    @property
    def chunk_ids(self) -> np.ndarray:
        if self._chunk_ids is None:
            self._chunk_ids = np.concatenate([c.chunk_ids for c in self.chunk_parts])
        return self._chunk_ids

    @property
    def starts(self) -> np.ndarray:
        if self._starts is None:
            self._starts = np.concatenate([c.start for c in self.chunk_parts])
        return self._starts

    def file_norm(self) -> np.ndarray:
        """BM25's length normalisation of every unified blob as one document (the sum of its
        chunks' lengths, against their mean over the session's paths); computed once."""
        if self._file_norm is None:
            n_blobs = self.blob_mult.shape[0]
            n = float(self.blob_mult.sum())
            dl_chunks = np.concatenate([p.content.dl for p in self.chunk_parts]).astype(np.float64)
            dl = np.bincount(self.chunk_blob, weights=dl_chunks, minlength=n_blobs)
            avgdl = (float((self.blob_mult * dl).sum()) / n if n > 0 else 0.0) or 1.0
            self._file_norm = norm(dl, avgdl)
        return self._file_norm

    def row_path(self, row: int) -> str:
        return self.map.paths[int(self.rows_map[row])]

    def row_start(self, row: int) -> int:
        return int(self.starts[int(self.rows_chunk[row])])


def _read_map(conn: sqlite3.Connection, session_id: str
              ) -> tuple[list[tuple[Any, ...]], np.ndarray, np.ndarray]:
    """The map rows that have a cached blob, in path order; their blob ids and stamps.

    The stamp tells a blob row from a later one that reuses its id (after
    ``cache gc`` or a rebuild of the derived tables), so a saved base never
    lends old chunks to a new blob.
    """
    rows = sessionmap.search_rows(conn, session_id)
    blobs = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    memo: dict[int, int] = {}
    stamps = np.fromiter((memo[r[1]] if r[1] in memo else
                          memo.setdefault(r[1], stamp(r[6], r[7], r[8])) for r in rows),
                         dtype=np.uint32, count=len(rows))
    return rows, blobs, stamps


def _state(conn: sqlite3.Connection) -> tuple[int, int]:
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), int(conn.total_changes)


def is_warm(conn: sqlite3.Connection, session_id: str, embedder: str) -> bool:
    """Whether :func:`session_index` would answer from memory, without reading the store."""
    memo = _MEMO.get((store_file(conn), session_id, embedder))
    return memo is not None and memo[0] is conn and memo[1] == _state(conn)


def session_index(conn: sqlite3.Connection, session_id: str, embedder: str, *,
                  wait: bool = True) -> SessionIndex:
    """The session's rows over its chunk index, from memory, from disk, or built now.

    With ``wait``, a base that the background build is writing is waited for
    rather than built a second time (the background build itself does not wait).
    """
    key = (store_file(conn), session_id, embedder)
    state = _state(conn)
    memo = _MEMO.get(key)
    # data_version only sees other connections' commits, total_changes only this one's
    if memo is not None and memo[0] is conn and memo[1] == state and key[0]:
        _MEMO.move_to_end(key)
        return memo[2]
    idx = _assemble(conn, session_id, embedder, wait)
    forget_connection(conn)  # a connection works in one session at a time
    _MEMO.pop(key, None)
    _MEMO[key] = (conn, _state(conn), idx)
    while len(_MEMO) > MEMO_KEEP:
        _MEMO.popitem(last=False)
    return idx


def forget_connection(conn: sqlite3.Connection) -> None:
    """Drop what is kept in memory for ``conn`` (its store is being closed)."""
    for key in [k for k, v in _MEMO.items() if v[0] is conn]:
        del _MEMO[key]


def _assemble(conn: sqlite3.Connection, session_id: str, embedder: str,
              wait: bool = True) -> SessionIndex:
    rows, blobs, stamps = _read_map(conn, session_id)
    file = search_base_path(conn, session_id)
    base = read_base(file) if file is not None else None
    if base is not None and base.embedder != embedder:
        base = None
    rebuilt = False
    if base is not None:
        idx = _combine(conn, session_id, embedder, base, rows, blobs, stamps)
        if idx is not None:
            return idx
    if wait and file is not None and base is None:
        from genesis_git.kernel.progress import working
        from genesis_git.search.base.prebuild import wait_running

        with working("waiting for the search index being built"):
            waited = wait_running(file)
        if waited:  # the background build has just finished it
            base = read_base(file)
            if base is not None and base.embedder == embedder:
                idx = _combine(conn, session_id, embedder, base, rows, blobs, stamps)
                if idx is not None:
                    return idx
    rebuilt = True
    built: Base | None = None
    from genesis_git.kernel.progress import working

    with working("building the search index"):
        if file is not None:
            try:
                built = stream_base(conn, file, embedder, blobs, stamps, [r[0] for r in rows])
                _forget_ended(conn, file.parent)
            except (OSError, RuntimeError):  # pragma: no cover - built in memory below instead
                built = None
        base = built or Base(embedder, load_chunks(conn, blobs, embedder),
                             PathSet.build([r[0] for r in rows]))
    idx = _combine(conn, session_id, embedder, base, rows, blobs, stamps, force=True)
    assert idx is not None
    idx.rebuilt = rebuilt
    return idx


def _forget_ended(conn: sqlite3.Connection, folder: Path) -> None:
    """Delete the bases of sessions that are no longer active."""
    active = session_rows.active_ids(conn)
    for f in folder.iterdir():
        if f.suffix == ".idx" and f.stem not in active:
            f.unlink(missing_ok=True)


def _combine(conn: sqlite3.Connection, session_id: str, embedder: str, base: Base,
             rows: list[tuple[Any, ...]], blobs: np.ndarray, stamps: np.ndarray,
             force: bool = False) -> SessionIndex | None:
    """Rows of the session over ``base`` plus an overlay; ``None`` when a rebuild pays off."""
    known, first, count, bpos = base.chunks.locate(blobs)
    if base.chunks.n_blobs:
        known &= base.chunks.blob_stamp[bpos] == stamps
        first, count = np.where(known, first, 0), np.where(known, count, 0)
    missing = unique(blobs[~known])
    parts = [base.chunks]
    if missing.shape[0]:
        overlay = load_chunks(conn, missing, embedder)
        if not force and (overlay.n > OVERLAY_MAX or overlay.n > base.chunks.n // 4 + 200):
            return None
        if (not force and overlay.n and base.chunks.n
                and overlay.dim != base.chunks.dim):
            return None  # the embedder changed: the base is of no more use
        _, o_first, o_count, o_pos = overlay.locate(blobs)
        first = np.where(known, first, o_first + base.chunks.n)
        count = np.where(known, count, o_count)
        bpos = np.where(known, bpos, o_pos + base.chunks.n_blobs)
        parts.append(overlay)
    keep = count > 0
    rows = [r for r, k in zip(rows, keep, strict=True) if k]
    first, count, bpos = first[keep], count[keep], bpos[keep]
    lookup = base.paths.lookup()
    extra: list[str] = []
    path_u = np.empty(len(rows), dtype=np.int64)
    n_base_paths = len(base.paths.paths)
    for i, r in enumerate(rows):
        j = lookup.get(r[0])
        if j is None:
            j = n_base_paths + len(extra)
            extra.append(r[0])
        path_u[i] = j
    if not force and len(extra) > OVERLAY_MAX:
        return None
    path_parts = [base.paths] + ([PathSet.build(extra)] if extra else [])
    total = int(count.sum())
    rows_map = np.repeat(np.arange(len(rows), dtype=np.int64), count)
    offsets = np.cumsum(count) - count
    rows_chunk = (np.repeat(first, count) + np.arange(total, dtype=np.int64)
                  - np.repeat(offsets, count))
    n_unified = sum(p.n for p in parts)
    mult_all = np.bincount(rows_chunk, minlength=n_unified).astype(np.float64)
    if (not force and base.chunks.n > 200
            and np.count_nonzero(mult_all[:base.chunks.n]) < base.chunks.n // 2):
        return None
    cuts = np.cumsum([0] + [p.n for p in parts])
    chunk_mult = [mult_all[cuts[i]:cuts[i + 1]] for i in range(len(parts))]
    pmult_all = np.zeros(n_base_paths + len(extra), dtype=np.float64)
    pmult_all[path_u] = 1.0
    path_mult = [pmult_all[:n_base_paths]] + ([pmult_all[n_base_paths:]] if extra else [])
    n_blobs = sum(p.n_blobs for p in parts)
    blob_mult = np.bincount(bpos, minlength=n_blobs).astype(np.float64)
    boffs = np.cumsum([0] + [p.n_blobs for p in parts])
    chunk_blob = np.concatenate([p.chunk_blob() + boffs[i] for i, p in enumerate(parts)])
    maprows = MapRows([r[0] for r in rows], np.array([r[2] for r in rows], dtype="<U5"),
                      [r[3] for r in rows], [r[4] for r in rows],
                      np.array([float(r[5] or 0.0) for r in rows], dtype=np.float64))
    return SessionIndex(session_id, embedder, parts, chunk_mult, path_parts, path_mult,
                        rows_map, rows_chunk, path_u[rows_map], maprows, chunk_blob, blob_mult)


def clear_memory() -> None:
    """Forget what this process holds in memory (tests; a long-lived process after a reindex)."""
    _MEMO.clear()
    basefile.forget()
