"""The chunk index of a search base, built from the blobs' packs a batch at a time.

The base of a session holds, for every chunk of the blobs it maps, the
postings of its terms and what its vector needs.  Both come from the blobs'
packs (:mod:`genesis_git.index.packs`): the terms pack gives each chunk's
tokens as indexes into the blob's own vocabulary.  :func:`batches` reads the
packs in blob order and indexes ``batch_chunks`` chunks at a time:

* a blob's words are mapped once to the build's term table
  (:class:`TermTable`, which hashes each term once), its tokens by array
  indexing;
* the batch's tokens are grouped into (term, chunk) postings, ordered by term
  hash and then chunk, as :meth:`TermIndex.build` orders them;
* the hashing embedder's vectors are never stored: the batch keeps each
  term's slot and each chunk's vector length, from which a query's cosines
  are sums over postings (:mod:`genesis_git.search.vectors`); another
  embedder's unit vectors are read from the vectors pack.

:func:`load_chunks` keeps one batch of everything in memory (an overlay, or a
base that has no file); :mod:`genesis_git.search.base.stream` streams the
batches of a large base to its file in bounded memory.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import groupby
from typing import Any

import numpy as np

from genesis_git.index import packs
from genesis_git.index.cache import pack_unpacked
from genesis_git.providers.embedders import HashingEmbedder, hashing_dim
from genesis_git.search.termindex import TermIndex, term_hash
from genesis_git.store import blobs

BATCH_CHUNKS = 4000  # chunks indexed at once
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
    emb_t: np.ndarray  # float16[dim, U]: stored vectors, one row per dimension; dim 0 when none
    blob_stamp: np.ndarray  # uint32[B]: CRC of (sha, chunker, created_at) of each blob row
    # the hashing embedder's vectors, derived from the postings: the slot of each term of
    # ``content`` (slot + 1, negative for a negative sign) and the length of each chunk's vector
    slots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    norms: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    hashed: int = 0  # the hashing embedder's dimension (0: the vectors are stored)

    @property
    def dim(self) -> int:
        """The dimension of the chunks' vectors (0 when they have none)."""
        return self.hashed or int(self.emb_t.shape[0])

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

    @cached_property
    def slot_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """``(terms, ptr)``: the terms of ``content`` whose hashed-vector slot is ``s`` are
        ``terms[ptr[s]:ptr[s + 1]]``, ascending (kept for the life of the set: a query reads
        the terms of its few slots instead of looking at every term's)."""
        dim = self.hashed
        cols = np.abs(self.slots).astype(np.int64) - 1
        cols[cols < 0] += dim  # as indexing reads a slot of 0: the last one
        terms = np.argsort(cols, kind="stable")
        return terms, np.searchsorted(cols[terms], np.arange(dim + 1)).astype(np.int64)

    @cached_property
    def norms64(self) -> np.ndarray:
        """The chunks' vector lengths as float64 (kept for the life of the set)."""
        return self.norms.astype(np.float64)


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
    vectors: np.ndarray  # float16[n, dim]: stored unit vectors (dim 0 when derived or none)
    slots: np.ndarray  # int32[P]: the signed slot of each posting's term (hashing embedder)
    norms: np.ndarray  # float32[n]: the length of each chunk's hashed vector (hashing embedder)

    @property
    def n(self) -> int:
        return int(self.chunk_ids.shape[0])


def _blobs(conn: sqlite3.Connection, blob_ids: np.ndarray
           ) -> Iterator[tuple[list[tuple[int, int, int]], packs.Terms, bytes | None]]:
    """Each blob's chunk rows ``(id, blob_id, start_line)``, decoded terms and vectors pack."""
    wanted = [int(b) for b in blob_ids]
    for i in range(0, len(wanted), _IN_SQL):  # a part's chunk rows, then its packs
        part = wanted[i:i + _IN_SQL]
        rows = {bid: list(g) for bid, g in groupby(blobs.chunk_rows(conn, part),
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
            batch_chunks: int = BATCH_CHUNKS, first: int = 0) -> Iterator[Batch]:
    """The chunks of ``blob_ids`` (sorted, unique) indexed a batch at a time, in blob and
    chunk order; ``first`` is the position of their first chunk in the build."""
    dim = hashing_dim(embedder)
    table = TermTable(HashingEmbedder(dim) if dim else None)
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
    # the batch's terms in hash order; a token's key is (its term's rank, its chunk)
    seen = np.zeros(len(table.words), dtype=bool)
    seen[tokens] = True
    terms = np.flatnonzero(seen)
    terms = terms[np.argsort(table.hashes[terms], kind="stable")]
    rank = np.empty(len(table.words), dtype=np.int64)
    rank[terms] = np.arange(terms.shape[0], dtype=np.int64)
    width = max(n, 1)
    keys = np.sort(rank[tokens] * width + np.repeat(np.arange(n, dtype=np.int64), lengths),
                   kind="stable")  # a radix sort: three times quicker here
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if n else keys
    tf = np.diff(np.append(starts, keys.shape[0]))
    keys = keys[starts]
    term, docs = terms[keys // width], keys % width
    slots = np.zeros(0, dtype=np.int32)
    norms = np.zeros(0, dtype=np.float32)
    if table.hashing is not None:
        cols, signs = table.cols[term], table.signs[term]
        norms = table.hashing.postings_norms(cols, signs, docs, tf, n).astype(np.float32)
        slots = ((cols + 1) * signs).astype(np.int32)
        vectors = np.zeros((n, 0), dtype=VECTOR_DTYPE)
    else:
        dim = max((v.shape[1] for *_, v in pending if v is not None), default=0)
        vectors = np.concatenate([v if v is not None else np.zeros((len(c), dim), VECTOR_DTYPE)
                                  for c, _, _, v in pending]) if n else np.zeros((0, dim))
    batch = Batch(first, np.fromiter((r[0] for r in rows), dtype=np.int64, count=n),
                  np.fromiter((r[1] for r in rows), dtype=np.int64, count=n),
                  np.fromiter((r[2] for r in rows), dtype=np.int32, count=n),
                  table.hashes[term], docs + first,
                  np.minimum(tf, 0xFFFF).astype(np.uint16), lengths.astype(np.float32),
                  vectors.astype(VECTOR_DTYPE), slots, norms)
    table.reset_if_full()
    return batch


def _empty() -> Batch:
    i64, none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    i32 = np.zeros(0, dtype=np.int32)
    return Batch(0, i64, i64, i32, np.zeros(0, dtype=np.uint64), i64,
                 np.zeros(0, dtype=np.uint16), none, np.zeros((0, 0), dtype=VECTOR_DTYPE), i32,
                 none)


def _chunk_index(b: Batch) -> tuple[TermIndex, np.ndarray]:
    """The postings of one batch (its whole build) as a :class:`TermIndex`, and the slot of
    each of its terms (none without the hashing embedder)."""
    if b.hashes.shape[0] == 0:
        return TermIndex(b.hashes, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                         b.tf, b.dl), b.slots
    starts = np.flatnonzero(np.concatenate(([True], b.hashes[1:] != b.hashes[:-1])))
    return (TermIndex(b.hashes[starts], np.append(starts, b.hashes.shape[0]).astype(np.int64),
                      b.docs.astype(np.int32), b.tf, b.dl),
            b.slots[starts] if b.slots.shape[0] else b.slots)


def load_chunks(conn: sqlite3.Connection, blob_ids: np.ndarray, embedder: str) -> ChunkSet:
    """The chunks of ``blob_ids`` indexed in memory (an overlay, or a base with no file)."""
    blob_ids = unique(blob_ids.astype(np.int64))
    wanted = [int(b) for b in blob_ids]
    found = {i[0]: stamp(i[1], i[2], i[3]) for i in blobs.blob_identities(conn, wanted)}
    pack_unpacked(conn, wanted)  # stream_chunks does it for its build
    parts = list(batches(conn, blob_ids, embedder, batch_chunks=1 << 62))
    whole = parts[0] if parts else _empty()
    ptr = np.searchsorted(whole.blob_of, blob_ids, side="left")
    content, slots = _chunk_index(whole)
    return ChunkSet(blob_ids, np.append(ptr, whole.n).astype(np.int64), whole.chunk_ids,
                    whole.start, content, np.ascontiguousarray(whole.vectors.T),
                    np.fromiter((found.get(b, 0) for b in wanted), dtype=np.uint32,
                                count=len(wanted)), slots, whole.norms, hashing_dim(embedder) or 0)
