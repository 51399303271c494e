"""Build the chunk index of a search base from the blobs' packs, in bounded memory.

The base of a session holds, for every chunk of the blobs it maps, the
postings of its terms and its unit vector.  Both come from the blobs' packs
(:mod:`genesis_git.index.packs`): the terms pack gives each chunk's tokens as
indexes into the blob's own vocabulary, and the vectors are derived from the
terms for the hashing embedder
(:meth:`~genesis_git.embed.HashingEmbedder.embed_postings`) or read from the
vectors pack for another.  The build goes in batches:

1. the packs are read in blob order, ``batch_chunks`` chunks at a time; a
   blob's words are mapped once to the build's term table (:class:`TermTable`,
   which hashes each term once), its tokens by array indexing;
2. each batch's postings are grouped (term, chunk) and ordered by term hash;
   in memory they are the whole index (:func:`load_chunks`), streamed they are
   written to three spill files as one *run*, and each batch's unit vectors
   into their columns of the transposed matrix (one ``pwrite`` per dimension);
3. the runs are merged one slice of the 64-bit hash space at a time (the
   hashes are uniform), so only a slice of the postings is ever in memory;
4. the pieces are copied into the array file (:func:`arrayfile.save` takes
   spilled arrays as well as arrays in memory).

The streamed file is byte for byte the one of the base built in memory; the
spill files live in a temporary folder beside it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np

from genesis_git.db import blobs
from genesis_git.embed import HashingEmbedder, hashing_dim
from genesis_git.index import packs
from genesis_git.index.cache import pack_unpacked
from genesis_git.retrieve import arrayfile
from genesis_git.retrieve.termindex import TermIndex, term_hash

BATCH_CHUNKS = 4000  # chunks indexed at once
MERGE_SLICES = 64  # slices of the hash space merged one at a time
_IN_SQL = 500  # blob ids per query
VECTOR_DTYPE = np.dtype(np.float16)  # unit vectors of the base: half of float32, same rankings


@dataclass
class ChunkSet:
    """The chunks of a set of blobs: postings of their tokens and their embeddings."""

    blob_ids: np.ndarray  # int64[B], sorted; blobs without chunks included
    blob_ptr: np.ndarray  # int64[B + 1]: chunks of blob i are [ptr[i], ptr[i+1])
    chunk_ids: np.ndarray  # int64[U]
    start: np.ndarray  # int32[U]: first line, for stable ordering
    content: TermIndex
    emb_t: np.ndarray  # float16[dim, U]: one row per dimension; dim 0 without embeddings
    blob_stamp: np.ndarray  # uint32[B]: CRC of (sha, chunker, created_at) of each blob row

    @property
    def n(self) -> int:
        return int(self.chunk_ids.shape[0])

    @property
    def n_blobs(self) -> int:
        return int(self.blob_ids.shape[0])

    def chunk_blob(self) -> np.ndarray:
        """The blob (position in ``blob_ids``) of every chunk."""
        return np.repeat(np.arange(self.n_blobs, dtype=np.int64), np.diff(self.blob_ptr))

    def locate(self, blobs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For each blob id: (known?, first chunk, number of chunks, position)."""
        if self.blob_ids.shape[0] == 0:
            zero = np.zeros(blobs.shape[0], dtype=np.int64)
            return np.zeros(blobs.shape[0], dtype=bool), zero, zero, zero
        pos = np.searchsorted(self.blob_ids, blobs)
        pos_c = np.minimum(pos, self.blob_ids.shape[0] - 1)
        known = self.blob_ids[pos_c] == blobs
        first = np.where(known, self.blob_ptr[pos_c], 0)
        count = np.where(known, self.blob_ptr[pos_c + 1] - self.blob_ptr[pos_c], 0)
        return known, first, count, pos_c


def stamp(sha: str, chunker: str, created: str) -> int:
    """What tells a blob row from a later one that reuses its id."""
    return zlib.crc32(f"{sha}:{chunker}:{created}".encode())


def unique(a: np.ndarray) -> np.ndarray:
    """Sorted unique values (``np.unique`` would import ``numpy.ma``: 30 ms at start-up)."""
    if a.shape[0] == 0:
        return a
    a = np.sort(a)
    keep = np.empty(a.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


class TermTable(dict[str, int]):
    """The terms a build has met: an id each, its 64-bit hash and, for the hashing embedder,
    its vector slot and sign, each computed once per term."""

    MAX = 1_000_000  # terms kept; the table starts over between batches beyond that

    def __init__(self, hashing: HashingEmbedder | None) -> None:
        super().__init__()
        self.words: list[str] = []
        self.hashing = hashing
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.cols = np.zeros(0, dtype=np.int64)
        self.signs = np.zeros(0, dtype=np.float64)

    def __missing__(self, word: str) -> int:
        ident = self[word] = len(self.words)
        self.words.append(word)
        return ident

    def settle(self) -> None:
        """Hash (and place) the terms met since the last call."""
        new = self.words[self.hashes.shape[0]:]
        if not new:
            return
        self.hashes = np.concatenate([self.hashes, np.fromiter(
            map(term_hash, new), dtype=np.uint64, count=len(new))])
        if self.hashing is not None:
            cols, signs = self.hashing.slots(new)
            self.cols = np.concatenate([self.cols, cols])
            self.signs = np.concatenate([self.signs, signs])

    def reset_if_full(self) -> None:
        if len(self.words) > self.MAX:
            self.__init__(self.hashing)  # type: ignore[misc]


@dataclass
class Batch:
    """The chunks of consecutive blobs, indexed: postings ordered by term hash, then chunk."""

    first: int  # position of the batch's first chunk in the build
    chunk_ids: np.ndarray
    blob_of: np.ndarray  # the blob of each chunk
    start: np.ndarray
    hashes: np.ndarray  # uint64[P]: the term of each posting
    docs: np.ndarray  # int64[P]: its chunk (position in the build)
    tf: np.ndarray  # uint16[P]
    dl: np.ndarray  # float32[n]: tokens per chunk
    vectors: np.ndarray  # float16[n, dim]: unit vectors (dim 0 without embeddings)

    @property
    def n(self) -> int:
        return int(self.chunk_ids.shape[0])


def _blobs(conn: sqlite3.Connection, blob_ids: np.ndarray
           ) -> Iterator[tuple[list[tuple[int, int, int]], packs.Terms, bytes | None]]:
    """Each blob's chunk rows ``(id, blob_id, start_line)``, decoded terms and vectors pack."""
    wanted = [int(b) for b in blob_ids]
    pack_unpacked(conn, wanted)
    for i in range(0, len(wanted), _IN_SQL):
        part = wanted[i:i + _IN_SQL]
        rows = {bid: list(g) for bid, g in groupby(blobs.chunk_rows(conn, part, _IN_SQL),
                                                   key=lambda r: r[1])}
        for bid, _, n_chunks, terms, vectors in blobs.packs(conn, part, ("terms", "vectors")):
            chunks = rows.pop(bid, [])
            decoded = packs.decode_terms(terms)
            if len(chunks) != n_chunks or decoded.n_chunks != n_chunks:
                raise RuntimeError("chunk cache changed during the build")
            yield chunks, decoded, vectors
        if rows:  # chunks of a blob without packs
            raise RuntimeError("chunk cache changed during the build")


def batches(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str,
            batch_chunks: int = BATCH_CHUNKS) -> Iterator[Batch]:
    """The chunks of ``blob_ids`` (sorted, unique) indexed a batch at a time, in blob and
    chunk order."""
    dim = hashing_dim(embedder)
    table = TermTable(HashingEmbedder(dim) if dim else None)
    first = 0
    pending: list[tuple[list[tuple[int, int, int]], np.ndarray, np.ndarray, Any]] = []
    count = 0
    for chunks, terms, vectors in _blobs(conn, blob_ids):
        local = np.fromiter(map(table.__getitem__, terms.words), dtype=np.int64,
                            count=len(terms.words))
        pending.append((chunks, local[terms.seq], terms.lengths,
                        packs.decode_vectors(vectors, terms.n_chunks)))
        count += terms.n_chunks
        if count >= batch_chunks:
            yield _index(pending, first, table)
            first += count
            pending, count = [], 0
    if pending:
        yield _index(pending, first, table)


def _index(pending: list[tuple[list[tuple[int, int, int]], np.ndarray, np.ndarray, Any]],
           first: int, table: TermTable) -> Batch:
    """Group one batch's tokens into postings, ordered as :meth:`TermIndex.build` orders them."""
    table.settle()
    rows = [r for chunks, _, _, _ in pending for r in chunks]
    n = len(rows)
    lengths = np.concatenate([p[2] for p in pending])
    tokens = np.concatenate([p[1] for p in pending])
    doc = np.repeat(np.arange(n, dtype=np.int64), lengths)
    keys = np.sort(tokens * n + doc) if n else tokens
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if n else keys
    tf = np.diff(np.append(starts, keys.shape[0]))
    keys = keys[starts]
    term, docs = keys // max(n, 1), keys % max(n, 1)
    order = np.argsort(table.hashes[term], kind="stable")  # grouped by term, chunks ascending
    if table.hashing is not None:
        vectors = table.hashing.embed_postings(table.cols[term], table.signs[term], docs, tf,
                                               n).astype(VECTOR_DTYPE)
    else:
        dim = max((v.shape[1] for *_, v in pending if v is not None), default=0)
        vectors = np.concatenate([v if v is not None else np.zeros((len(c), dim), VECTOR_DTYPE)
                                  for c, _, _, v in pending]) if n else np.zeros((0, dim))
    batch = Batch(first, np.fromiter((r[0] for r in rows), dtype=np.int64, count=n),
                  np.fromiter((r[1] for r in rows), dtype=np.int64, count=n),
                  np.fromiter((r[2] for r in rows), dtype=np.int32, count=n),
                  table.hashes[term[order]], docs[order] + first,
                  np.minimum(tf[order], 0xFFFF).astype(np.uint16), lengths.astype(np.float32),
                  vectors.astype(VECTOR_DTYPE))
    table.reset_if_full()
    return batch


def _empty(dim: int) -> Batch:
    i64, none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    return Batch(0, i64, i64, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint64), i64,
                 np.zeros(0, dtype=np.uint16), none, np.zeros((0, dim), dtype=VECTOR_DTYPE))


def _chunk_index(b: Batch) -> TermIndex:
    """The postings of one batch (its whole build) as a :class:`TermIndex`."""
    if b.hashes.shape[0] == 0:
        return TermIndex(b.hashes, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                         b.tf, b.dl)
    starts = np.flatnonzero(np.concatenate(([True], b.hashes[1:] != b.hashes[:-1])))
    return TermIndex(b.hashes[starts], np.append(starts, b.hashes.shape[0]).astype(np.int64),
                     b.docs.astype(np.int32), b.tf, b.dl)


def load_chunks(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str) -> ChunkSet:
    """The chunks of ``blob_ids`` indexed in memory (an overlay, or a base with no file)."""
    blob_ids = unique(blob_ids.astype(np.int64))
    wanted = [int(b) for b in blob_ids]
    found = {i[0]: stamp(i[1], i[2], i[3]) for i in blobs.blob_identities(conn, wanted)}
    parts = list(batches(conn, blob_ids, embedder, batch_chunks=1 << 62))
    whole = parts[0] if parts else _empty(hashing_dim(embedder) or 0)
    ptr = np.searchsorted(whole.blob_of, blob_ids, side="left")
    return ChunkSet(blob_ids, np.append(ptr, whole.n).astype(np.int64), whole.chunk_ids,
                    whole.start, _chunk_index(whole), np.ascontiguousarray(whole.vectors.T),
                    np.fromiter((found.get(b, 0) for b in wanted), dtype=np.uint32,
                                count=len(wanted)))


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
class StreamedChunks:
    """What the batches leave in memory (one entry per blob or chunk, no text) and on disk."""

    blob_ids: np.ndarray
    blob_ptr: np.ndarray
    chunk_ids: np.ndarray
    start: np.ndarray
    content: dict[str, np.ndarray | arrayfile.Spilled]
    emb_t: np.ndarray | arrayfile.Spilled


def stream_chunks(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str, folder: Path,
                  batch_chunks: int = BATCH_CHUNKS, slices: int = MERGE_SLICES
                  ) -> StreamedChunks:
    """Index the chunks of ``blob_ids`` (sorted, unique) into spill files under ``folder``."""
    spill = _Spill(folder)
    total = blobs.chunk_count(conn, [int(b) for b in blob_ids], _IN_SQL)
    emb_path = spill.path("emb_t")
    emb_fd = os.open(emb_path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    dim = hashing_dim(embedder)
    size = VECTOR_DTYPE.itemsize
    ids: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    starts: list[np.ndarray] = []
    runs: list[tuple[int, int]] = []  # (first posting, postings) of each run
    dls: list[np.ndarray] = []
    n_post = n_chunks = 0
    try:
        for b in batches(conn, blob_ids, embedder, batch_chunks):
            if b.first + b.n > total:  # the cache changed under the build
                raise RuntimeError("chunk cache changed during the build")
            if dim is None:
                dim = int(b.vectors.shape[1])
                os.ftruncate(emb_fd, dim * total * size)
            elif n_chunks == 0:
                os.ftruncate(emb_fd, dim * total * size)
            ids.append(b.chunk_ids)
            owners.append(b.blob_of)
            starts.append(b.start)
            spill.append("hash", b.hashes)
            spill.append("docs", b.docs)
            spill.append("tf", b.tf)
            runs.append((n_post, int(b.docs.shape[0])))
            n_post += int(b.docs.shape[0])
            dls.append(b.dl)
            for d in range(b.vectors.shape[1]):
                os.pwrite(emb_fd, np.ascontiguousarray(b.vectors[:, d]).tobytes(),
                          (d * total + b.first) * size)
            n_chunks += b.n
    finally:
        os.close(emb_fd)
    if n_chunks != total:  # the cache changed under the build: let the caller retry in memory
        raise RuntimeError("chunk cache changed during the build")
    content = _merge(spill, runs, slices, n_chunks, dls)
    chunk_blob = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    ptr = np.searchsorted(chunk_blob, blob_ids, side="left")
    dim = dim or 0
    emb_t: np.ndarray | arrayfile.Spilled = (
        arrayfile.Spilled(emb_path, VECTOR_DTYPE, (dim, total)) if dim and total
        else np.zeros((dim, total), dtype=VECTOR_DTYPE))
    return StreamedChunks(blob_ids, np.append(ptr, n_chunks).astype(np.int64),
                          np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64),
                          np.concatenate(starts) if starts else np.zeros(0, dtype=np.int32),
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
