"""A large search base streamed to its file in bounded memory, by two processes when it pays.

The batches of :func:`genesis_git.search.base.build.batches` are not kept:

1. each batch's postings are written to spill files as one *run* (sorted by
   term hash, then chunk); a stored vector is written into its column of the
   transposed matrix (one ``pwrite`` per dimension);
2. the runs are merged one slice of the 64-bit hash space at a time (the
   hashes are uniform), so only a slice of the postings is ever in memory;
3. the pieces are copied into the array file (:func:`arrayfile.save` takes
   spilled arrays as well as arrays in memory).

The blobs are cut into :data:`WORKERS` shares of about as many chunks, in
blob order; a forked process indexes each share but the first, which the
caller indexes itself, each into a spill folder of its own, and the runs are
merged in share order.  So the file is byte for byte the one of the base
built in memory (:func:`genesis_git.search.base.build.load_chunks`); the
spill files live in a temporary folder beside it.
"""

from __future__ import annotations

import os
import pickle
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genesis_git.index.cache import pack_unpacked
from genesis_git.providers.embedders import hashing_dim
from genesis_git.search.base import arrayfile
from genesis_git.search.base.build import BATCH_CHUNKS, VECTOR_DTYPE, batches
from genesis_git.search.termindex import TermIndex
from genesis_git.store import blobs
from genesis_git.store.connect import store_file

MERGE_SLICES = 64  # slices of the hash space merged one at a time
WORKERS = 2  # processes that index a large base (the caller is one)
SHARE_MIN = 20_000  # chunks of a share below which one process does it all


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


@dataclass
class _Share:
    """What indexing one share leaves: its runs in its spill folder, its chunks' arrays."""

    folder: Path
    runs: list[tuple[int, int]] = field(default_factory=list)  # (first posting, postings)
    kept: dict[str, list[np.ndarray]] = field(default_factory=lambda: {
        "ids": [], "owners": [], "starts": [], "dls": [], "norms": []})
    chunks: int = 0
    dim: int = 0


@dataclass
class StreamedChunks:
    """What the batches leave in memory (one entry per blob or chunk, no text) and on disk."""

    blob_ids: np.ndarray
    blob_ptr: np.ndarray
    chunk_ids: np.ndarray
    start: np.ndarray
    content: dict[str, np.ndarray | arrayfile.Spilled]
    emb_t: np.ndarray | arrayfile.Spilled
    slots: np.ndarray
    norms: np.ndarray


def _index_share(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str, share: _Share,
                 first: int, total: int, emb_fd: int, batch_chunks: int) -> _Share:
    """Index the chunks of ``blob_ids`` (the first at position ``first``) into ``share``."""
    spill = _Spill(share.folder)
    n_post = 0
    size = VECTOR_DTYPE.itemsize
    for b in batches(conn, blob_ids, embedder, batch_chunks, first):
        if b.first + b.n > total:  # the cache changed under the build
            raise RuntimeError("chunk cache changed during the build")
        if share.chunks == 0:
            share.dim = int(b.vectors.shape[1])
            if share.dim:
                os.ftruncate(emb_fd, share.dim * total * size)
        for key, arr in (("ids", b.chunk_ids), ("owners", b.blob_of), ("starts", b.start),
                         ("dls", b.dl), ("norms", b.norms)):
            share.kept[key].append(arr)
        for name in ("hashes", "docs", "tf", "slots"):
            spill.append(name, getattr(b, name))
        share.runs.append((n_post, int(b.docs.shape[0])))
        n_post += int(b.docs.shape[0])
        for d in range(b.vectors.shape[1]):
            os.pwrite(emb_fd, np.ascontiguousarray(b.vectors[:, d]).tobytes(),
                      (d * total + b.first) * size)
        share.chunks += b.n
    return share


def _shares(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str, total: int
            ) -> list[tuple[np.ndarray, int]]:
    """``blob_ids`` cut into shares of about as many chunks, each with its first position;
    one share unless the base is large and its vectors derive from the terms (a stored
    vector is written by the one process that knows the dimension)."""
    workers = min(WORKERS, os.cpu_count() or 1, total // SHARE_MIN)
    if workers < 2 or hashing_dim(embedder) is None or not store_file(conn):
        return [(blob_ids, 0)]
    per_blob = blobs.chunks_per_blob(conn, [int(b) for b in blob_ids])
    ends = np.cumsum([per_blob.get(int(b), 0) for b in blob_ids])
    cuts = [0, *(int(np.searchsorted(ends, total * k // workers)) + 1
                 for k in range(1, workers)), len(blob_ids)]
    return [(blob_ids[a:b], int(ends[a - 1]) if a else 0)
            for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]


def stream_chunks(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str, folder: Path,
                  batch_chunks: int = BATCH_CHUNKS, slices: int = MERGE_SLICES
                  ) -> StreamedChunks:
    """Index the chunks of ``blob_ids`` (sorted, unique) into spill files under ``folder``."""
    total = blobs.chunk_count(conn, [int(b) for b in blob_ids])
    pack_unpacked(conn, [int(b) for b in blob_ids])  # before any process reads the packs
    emb_path = folder / "emb_t.bin"
    emb_fd = os.open(emb_path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    parts = _shares(conn, blob_ids, embedder, total)
    done: list[_Share] = []
    try:
        children = [_fork_share(conn, ids, embedder, folder / f"share{i}", first, total, emb_fd,
                                batch_chunks) for i, (ids, first) in enumerate(parts) if i]
        share = _Share(folder / "share0")
        share.folder.mkdir()
        done.append(_index_share(conn, parts[0][0], embedder, share, 0, total, emb_fd,
                                 batch_chunks))
        for i, pid in enumerate(children, start=1):
            done.append(_collect(pid, conn, parts[i], embedder, folder / f"share{i}", total,
                                 emb_fd, batch_chunks))
    finally:
        os.close(emb_fd)
    n_chunks = sum(s.chunks for s in done)
    if n_chunks != total:  # the cache changed under the build: let the caller retry in memory
        raise RuntimeError("chunk cache changed during the build")
    runs = [(_Spill(s.folder), first, count) for s in done for first, count in s.runs]
    dls = [a for s in done for a in s.kept["dls"]]
    content, slots = _merge(_Spill(folder), runs, slices, n_chunks, dls,
                            hashing_dim(embedder) is not None)
    joined = {k: np.concatenate([a for s in done for a in s.kept[k]] or [np.zeros(0)])
              for k in done[0].kept}
    ptr = np.searchsorted(joined["owners"].astype(np.int64), blob_ids, side="left")
    dim = done[0].dim
    emb_t: np.ndarray | arrayfile.Spilled = (
        arrayfile.Spilled(emb_path, VECTOR_DTYPE, (dim, total)) if dim and total
        else np.zeros((dim, total), dtype=VECTOR_DTYPE))
    return StreamedChunks(blob_ids, np.append(ptr, n_chunks).astype(np.int64),
                          joined["ids"].astype(np.int64), joined["starts"].astype(np.int32),
                          content, emb_t, slots, joined["norms"].astype(np.float32))


def _fork_share(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str, folder: Path,
                first: int, total: int, emb_fd: int, batch_chunks: int) -> int:
    """A child process that indexes one share into ``folder`` and leaves its arrays there."""
    folder.mkdir()
    db = store_file(conn)
    pid = os.fork()
    if pid:
        return pid
    code = 1  # pragma: no cover - the child: its coverage is not recorded
    try:  # pragma: no cover
        from genesis_git.store.connect import connect

        share = _index_share(connect(db), blob_ids, embedder, _Share(folder), first, total,
                             emb_fd, batch_chunks)
        with (folder / "share.pickle").open("wb") as fh:
            pickle.dump((share.runs, share.kept, share.chunks, share.dim), fh)
        code = 0
    finally:  # pragma: no cover
        os._exit(code)


def _collect(pid: int, conn: sqlite3.Connection, part: tuple[np.ndarray, int], embedder: str,
             folder: Path, total: int, emb_fd: int, batch_chunks: int) -> _Share:
    """The share a child indexed; indexed here when the child failed."""
    _, status = os.waitpid(pid, 0)
    saved = folder / "share.pickle"
    if os.waitstatus_to_exitcode(status) == 0 and saved.exists():
        with saved.open("rb") as fh:
            runs, kept, chunks, dim = pickle.load(fh)  # noqa: S301 - our own child's file
        return _Share(folder, runs, kept, chunks, dim)
    shutil.rmtree(folder, ignore_errors=True)  # pragma: no cover - a child that failed
    folder.mkdir()  # pragma: no cover
    return _index_share(conn, part[0], embedder, _Share(folder), part[1], total,  # pragma: no cover
                        emb_fd, batch_chunks)


def _merge(out: _Spill, runs: list[tuple[_Spill, int, int]], slices: int, n_docs: int,
           dls: list[np.ndarray], hashed: bool
           ) -> tuple[dict[str, np.ndarray | arrayfile.Spilled], np.ndarray]:
    """The postings of all runs grouped by term, as :meth:`TermIndex.build` groups them, and
    the slot of each term (none without the hashing embedder)."""
    u64, i64, u16, i32 = (np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.uint16),
                          np.dtype(np.int32))
    bounds = [0] + [(i * (1 << 64)) // slices for i in range(1, slices)] + [1 << 64]
    # where each slice starts in each run (the run's hashes are sorted)
    cuts: list[list[int]] = []
    for spill, first, count in runs:
        hashes = spill.read("hashes", u64, first, count)
        cuts.append([int(x) for x in np.searchsorted(
            hashes, np.asarray(bounds[:-1], dtype=np.uint64), side="left")] + [count])
        del hashes
    vocab: list[np.ndarray] = []
    per_term: list[np.ndarray] = []
    slots: list[np.ndarray] = []
    for s in range(slices):
        hs, ds, ts, ss = [], [], [], []
        for r, (spill, first, _) in enumerate(runs):
            lo, hi = cuts[r][s], cuts[r][s + 1]
            hs.append(spill.read("hashes", u64, first + lo, hi - lo))
            ds.append(spill.read("docs", i64, first + lo, hi - lo))
            ts.append(spill.read("tf", u16, first + lo, hi - lo))
            if hashed:
                ss.append(spill.read("slots", i32, first + lo, hi - lo))
        if not hs:
            continue
        h = np.concatenate(hs)
        if h.shape[0] == 0:
            continue
        order = np.argsort(h, kind="stable")  # runs are in chunk order: chunks stay ascending
        h = h[order]
        out.append("m_docs", np.concatenate(ds)[order].astype(np.int32))
        out.append("m_tf", np.concatenate(ts)[order])
        starts = np.flatnonzero(np.concatenate(([True], h[1:] != h[:-1])))
        vocab.append(h[starts])
        per_term.append(np.diff(np.append(starts, h.shape[0])))
        if hashed:
            slots.append(np.concatenate(ss)[order][starts])
    hashes = np.concatenate(vocab) if vocab else np.zeros(0, dtype=np.uint64)
    counts = np.concatenate(per_term) if per_term else np.zeros(0, dtype=np.int64)
    term_slots = np.concatenate(slots) if slots else np.zeros(0, dtype=np.int32)
    ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    n_post = int(ptr[-1])
    dl = np.concatenate(dls).astype(np.float32) if dls else np.zeros(n_docs, dtype=np.float32)
    if n_post == 0:
        empty = TermIndex.empty(n_docs)
        return {"hashes": empty.hashes, "ptr": empty.ptr, "docs": empty.docs, "tf": empty.tf,
                "dl": dl}, term_slots
    return {"hashes": hashes.astype(np.uint64), "ptr": ptr,
            "docs": arrayfile.Spilled(out.path("m_docs"), np.dtype(np.int32), (n_post,)),
            "tf": arrayfile.Spilled(out.path("m_tf"), u16, (n_post,)), "dl": dl}, term_slots


def spill_folder(beside: Path) -> Path:
    beside.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=beside.name + ".", suffix=".build", dir=beside.parent))


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
