"""Build a session's search base in bounded memory, streamed to its file.

The base of a large session (every chunk's postings and unit vector) is
larger than what a command may hold at once.  So it is built in batches:

1. the chunks are read from the cache in ``batch_chunks`` pieces, in the
   order of the in-memory build (blob id, then ``ord``);
2. each batch's postings are indexed (:meth:`TermIndex.build`) and written
   to three spill files as one *run*, sorted by term hash then chunk; each
   batch's unit vectors are written into their columns of the transposed
   matrix (one ``pwrite`` per dimension);
3. the runs are merged one slice of the 64-bit hash space at a time (the
   hashes are uniform), so only a slice of the postings is ever in memory;
4. the pieces are copied into the array file (:func:`arrayfile.save` takes
   spilled arrays as well as arrays in memory).

The file is byte for byte what :func:`session_index.save_base` writes for the
same chunks; the spill files live in a temporary folder beside it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genesis_git.db import blobs
from genesis_git.retrieve import arrayfile
from genesis_git.retrieve.termindex import TermIndex

BATCH_CHUNKS = 4000  # chunks indexed at once
MERGE_SLICES = 64  # slices of the hash space merged one at a time
_IN_SQL = 500  # blob ids per query


@dataclass
class _Spill:
    """Arrays appended piece by piece to files of one folder."""

    folder: Path

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.bin"

    def append(self, name: str, arr: np.ndarray) -> None:
        with self.path(name).open("ab") as fh:
            fh.write(np.ascontiguousarray(arr).tobytes())

    def read(self, name: str, dtype: np.dtype, start: int, count: int) -> np.ndarray:
        if count <= 0:
            return np.zeros(0, dtype=dtype)
        with self.path(name).open("rb") as fh:
            fh.seek(start * dtype.itemsize)
            return np.fromfile(fh, dtype=dtype, count=count)


def _chunk_rows(conn: sqlite3.Connection, blob_ids: np.ndarray
                ) -> Iterator[tuple[int, int, int, str, bytes | None]]:
    return blobs.chunk_rows(conn, [int(b) for b in blob_ids], _IN_SQL)


def _chunk_count(conn: sqlite3.Connection, blob_ids: np.ndarray) -> tuple[int, int]:
    """Chunks of ``blob_ids`` and the dimension of their embeddings (0: none)."""
    return blobs.chunk_count_and_dim(conn, [int(b) for b in blob_ids], _IN_SQL)


VECTOR_DTYPE = np.dtype(np.float16)  # unit vectors of the base


def unit_rows(embs: list[bytes | None], dim: int) -> np.ndarray:
    """Stored float32 vectors as unit rows of :data:`VECTOR_DTYPE` (zero rows for missing ones)."""
    zero = bytes(4 * dim)
    raw = b"".join(e if e is not None and len(e) == 4 * dim else zero for e in embs)
    mat = np.frombuffer(raw, dtype="<f4").reshape(len(embs), dim).astype(np.float32)
    norms = np.linalg.norm(mat, axis=1)
    norms[norms == 0] = 1.0
    return (mat / norms[:, None]).astype(VECTOR_DTYPE)


@dataclass
class StreamedChunks:
    """What the batches leave in memory (one entry per blob or chunk, no text) and on disk."""

    blob_ids: np.ndarray
    blob_ptr: np.ndarray
    chunk_ids: np.ndarray
    start: np.ndarray
    content: dict[str, np.ndarray | arrayfile.Spilled]
    emb_t: np.ndarray | arrayfile.Spilled


def stream_chunks(conn: sqlite3.Connection, blob_ids: np.ndarray, folder: Path,
                  batch_chunks: int = BATCH_CHUNKS, slices: int = MERGE_SLICES
                  ) -> StreamedChunks:
    """Index the chunks of ``blob_ids`` (sorted, unique) into spill files under ``folder``."""
    spill = _Spill(folder)
    total, dim = _chunk_count(conn, blob_ids)
    emb_path = spill.path("emb_t")
    emb_fd = os.open(emb_path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        size = VECTOR_DTYPE.itemsize
        os.ftruncate(emb_fd, dim * total * size)
        ids: list[int] = []
        blobs: list[int] = []
        starts: list[int] = []
        runs: list[tuple[int, int]] = []  # (first posting, postings) of each run
        dls: list[np.ndarray] = []
        n_post = 0
        batch_tokens: list[list[str]] = []
        batch_embs: list[bytes | None] = []

        def flush() -> None:
            nonlocal n_post
            if not batch_tokens:
                return
            first = len(ids) - len(batch_tokens)
            idx = TermIndex.build(batch_tokens)
            counts = np.diff(idx.ptr)
            spill.append("hash", np.repeat(idx.hashes, counts))
            spill.append("docs", idx.docs.astype(np.int64) + first)
            spill.append("tf", idx.tf)
            runs.append((n_post, int(idx.docs.shape[0])))
            n_post += int(idx.docs.shape[0])
            dls.append(idx.dl)
            if dim:
                rows = unit_rows(batch_embs, dim)
                for d in range(dim):
                    os.pwrite(emb_fd, np.ascontiguousarray(rows[:, d]).tobytes(),
                              (d * total + first) * size)
            batch_tokens.clear()
            batch_embs.clear()

        for cid, bid, start, tokens, emb in _chunk_rows(conn, blob_ids):
            ids.append(cid)
            blobs.append(bid)
            starts.append(start)
            batch_tokens.append(tokens.split())
            batch_embs.append(emb)
            if len(batch_tokens) >= batch_chunks:
                flush()
        flush()
    finally:
        os.close(emb_fd)
    if len(ids) != total:  # the cache changed under the build: let the caller retry in memory
        raise RuntimeError("chunk cache changed during the build")
    content = _merge(spill, runs, slices, len(ids), dls)
    chunk_blob = np.asarray(blobs, dtype=np.int64)
    ptr = np.searchsorted(chunk_blob, blob_ids, side="left")
    emb_t: np.ndarray | arrayfile.Spilled = (
        arrayfile.Spilled(emb_path, VECTOR_DTYPE, (dim, total)) if dim
        else np.zeros((0, total), dtype=VECTOR_DTYPE))
    return StreamedChunks(blob_ids, np.append(ptr, len(ids)).astype(np.int64),
                          np.asarray(ids, dtype=np.int64), np.asarray(starts, dtype=np.int32),
                          content, emb_t)


def _merge(spill: _Spill, runs: list[tuple[int, int]], slices: int, n_docs: int,
           dls: list[np.ndarray]) -> dict[str, np.ndarray | arrayfile.Spilled]:
    """The postings of all runs grouped by term, as :meth:`TermIndex.build` groups them."""
    u64, i64, u16 = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.uint16)
    bounds = [0] + [(i * (1 << 64)) // slices for i in range(1, slices)] + [1 << 64]
    # where each slice starts in each run (the run's hashes are sorted)
    cuts: list[list[int]] = []
    for first, count in runs:
        hashes = spill.read("hash", u64, first, count)
        cuts.append([int(x) for x in np.searchsorted(
            hashes, np.asarray(bounds[:-1], dtype=np.uint64), side="left")] + [count])
        del hashes
    vocab: list[np.ndarray] = []
    per_term: list[np.ndarray] = []
    for s in range(slices):
        hs, ds, ts = [], [], []
        for r, (first, _) in enumerate(runs):
            lo, hi = cuts[r][s], cuts[r][s + 1]
            hs.append(spill.read("hash", u64, first + lo, hi - lo))
            ds.append(spill.read("docs", i64, first + lo, hi - lo))
            ts.append(spill.read("tf", u16, first + lo, hi - lo))
        if not hs:
            continue
        h = np.concatenate(hs)
        if h.shape[0] == 0:
            continue
        order = np.argsort(h, kind="stable")  # runs are in chunk order: chunks stay ascending
        h = h[order]
        spill.append("m_docs", np.concatenate(ds)[order].astype(np.int32))
        spill.append("m_tf", np.concatenate(ts)[order])
        starts = np.flatnonzero(np.concatenate(([True], h[1:] != h[:-1])))
        vocab.append(h[starts])
        per_term.append(np.diff(np.append(starts, h.shape[0])))
    hashes = np.concatenate(vocab) if vocab else np.zeros(0, dtype=np.uint64)
    counts = np.concatenate(per_term) if per_term else np.zeros(0, dtype=np.int64)
    ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    n_post = int(ptr[-1])
    dl = np.concatenate(dls).astype(np.float32) if dls else np.zeros(n_docs, dtype=np.float32)
    if n_post == 0:
        empty = TermIndex.empty(n_docs)
        return {"hashes": empty.hashes, "ptr": empty.ptr, "docs": empty.docs, "tf": empty.tf,
                "dl": dl}
    return {"hashes": hashes.astype(np.uint64), "ptr": ptr,
            "docs": arrayfile.Spilled(spill.path("m_docs"), np.dtype(np.int32), (n_post,)),
            "tf": arrayfile.Spilled(spill.path("m_tf"), u16, (n_post,)), "dl": dl}


def spill_folder(beside: Path) -> Path:
    beside.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=beside.name + ".", suffix=".build", dir=beside.parent))


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
