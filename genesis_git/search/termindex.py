"""An inverted index over token lists, held in a few numpy arrays.

The vocabulary is stored as sorted 64-bit hashes of the terms (BLAKE2b), so
that loading an index from disk builds no dictionary and a lookup is one
``searchsorted``.  Postings are grouped by term: for term ``i`` the documents
are ``docs[ptr[i]:ptr[i+1]]`` with their term frequencies ``tf[…]``.

Documents here are whatever the caller indexes: the unique chunks of a
session (content BM25) or its paths (path BM25).  How often a document
counts in the statistics is the caller's multiplicity vector, so one index
serves many sessions that map the same blobs, and a document the session no
longer maps simply counts zero times.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from genesis_git.search.base.arrayfile import range_positions, read_ranges
from genesis_git.text.bm25 import K1, B, idf, norm, term_score

_EMPTY_U64 = np.zeros(0, dtype=np.uint64)
MAP_POSTINGS_MAX = 16 << 20  # bytes of postings a query may touch through the base's map


def term_hash(term: str) -> int:
    """Stable 64-bit hash of a term (the same on every platform and run)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


def _counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique keys and their counts (``np.unique`` would import ``numpy.ma``)."""
    keys = np.sort(keys)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    counts = np.diff(np.append(starts, keys.shape[0]))
    return keys[starts], counts


@dataclass
class TermIndex:
    hashes: np.ndarray  # uint64[V], sorted
    ptr: np.ndarray  # int64[V + 1]
    docs: np.ndarray  # int32[P]
    tf: np.ndarray  # uint16[P]
    dl: np.ndarray  # float32[D]: document lengths in tokens
    # the file that holds ``docs`` and ``tf`` and where (a saved index): many terms' postings
    # are read from it rather than through its map (:func:`arrayfile.read_ranges`)
    source: tuple[Path, int, int] | None = None

    @property
    def n_docs(self) -> int:
        return int(self.dl.shape[0])

    @classmethod
    def empty(cls, n_docs: int = 0) -> TermIndex:
        return cls(_EMPTY_U64.copy(), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                   np.zeros(0, dtype=np.uint16), np.zeros(n_docs, dtype=np.float32))

    @classmethod
    def build(cls, token_lists: Sequence[Sequence[str]]) -> TermIndex:
        """Index documents given as token lists (duplicates are term frequencies)."""
        n_docs = len(token_lists)
        lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=n_docs)
        total = int(lengths.sum())
        if total == 0:
            return cls.empty(n_docs)
        flat = list(chain.from_iterable(token_lists))
        vocab = {t: i for i, t in enumerate(dict.fromkeys(flat))}  # C loops, not Python ones
        ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=total)
        hashes = np.fromiter(map(term_hash, vocab), dtype=np.uint64, count=len(vocab))
        order = np.argsort(hashes, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.shape[0])
        doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        keys = rank[ids] * max(n_docs, 1) + doc_of
        uniq, counts = _counts(keys)
        term_of = uniq // max(n_docs, 1)
        ptr = np.searchsorted(term_of, np.arange(order.shape[0] + 1)).astype(np.int64)
        return cls(hashes[order], ptr, (uniq % max(n_docs, 1)).astype(np.int32),
                   np.minimum(counts, 65535).astype(np.uint16), lengths.astype(np.float32))

    def postings(self, h: int) -> tuple[np.ndarray, np.ndarray]:
        """(documents, term frequencies) of the term with hash ``h``."""
        if self.hashes.shape[0] == 0:
            return self.docs[:0], self.tf[:0]
        key = np.uint64(h)
        i = int(np.searchsorted(self.hashes, key))
        if i >= self.hashes.shape[0] or self.hashes[i] != key:
            return self.docs[:0], self.tf[:0]
        lo, hi = int(self.ptr[i]), int(self.ptr[i + 1])
        return self.docs[lo:hi], self.tf[lo:hi]

    def gather(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(docs, tf, counts)``: the postings of the terms at positions ``terms`` (ascending),
        one term after the other, and how many each has.

        Postings of a saved base larger than :data:`MAP_POSTINGS_MAX` bytes are read with
        ``pread`` (:func:`read_ranges`: the ranges touched through the map would bring most
        of the file into the process's memory); smaller ones are taken through the map,
        three times cheaper for the few hundred ranges of a query's vector slots."""
        lo = self.ptr[terms]
        counts = self.ptr[terms + 1] - lo
        if self.source is not None and self.docs.nbytes + self.tf.nbytes > MAP_POSTINGS_MAX:
            path, docs_at, tf_at = self.source
            return (read_ranges(path, docs_at, self.docs.dtype, lo, counts),
                    read_ranges(path, tf_at, self.tf.dtype, lo, counts), counts)
        where = range_positions(lo, counts)
        return self.docs[where], self.tf[where], counts

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}hashes": self.hashes, f"{prefix}ptr": self.ptr,
                f"{prefix}docs": self.docs, f"{prefix}tf": self.tf, f"{prefix}dl": self.dl}

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray], prefix: str,
                    file: tuple[Path, dict[str, int]] | None = None) -> TermIndex:
        """The index of the arrays ``prefix*``; ``file`` is the array file that holds them and
        where each array starts in it."""
        source = None if file is None else (
            file[0], file[1][f"{prefix}docs"], file[1][f"{prefix}tf"])
        return cls(data[f"{prefix}hashes"], data[f"{prefix}ptr"], data[f"{prefix}docs"],
                   data[f"{prefix}tf"], data[f"{prefix}dl"], source)


@dataclass
class Part:
    """One index and how many times each of its documents counts (0: not in the session)."""

    index: TermIndex
    mult: np.ndarray  # float64[D]


@dataclass
class TermStats:
    term: str
    weight: float
    df: int
    idf: float


@dataclass
class Stats:
    """Collection statistics of one BM25 run, kept for explanations."""

    n: float
    avgdl: float
    terms: list[TermStats]
    k1: float = K1
    b: float = B

    def contribution(self, term: TermStats, tf: float, dl: float) -> float:
        """One term's share of a document's score."""
        if tf <= 0 or term.df == 0:
            return 0.0
        return float(term_score(tf, norm(dl, self.avgdl, self.k1, self.b), term.idf, term.weight,
                                self.k1))


def bm25(parts: Sequence[Part], terms: Sequence[tuple[str, float]], *, k1: float = K1,
         b: float = B) -> tuple[list[np.ndarray], Stats]:
    """BM25 scores of every document of every part, with statistics over all parts.

    ``N`` is the sum of the multiplicities, ``avgdl`` their weighted mean
    length, ``df`` the multiplicity-weighted document frequency; IDF is
    Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))``, which is never negative.
    Each term's contribution is multiplied by its weight (synonyms: 0.5).
    """
    scores = [np.zeros(p.index.n_docs, dtype=np.float64) for p in parts]
    n = float(sum(float(p.mult.sum()) for p in parts))
    stats: list[TermStats] = []
    if n <= 0:
        return scores, Stats(0.0, 1.0, [TermStats(t, w, 0, 0.0) for t, w in terms], k1, b)
    avgdl = sum(float((p.mult * p.index.dl).sum()) for p in parts) / n
    avgdl = avgdl if avgdl > 0 else 1.0
    norms = [norm(p.index.dl.astype(np.float64), avgdl, k1, b) for p in parts]
    for term, weight in terms:
        h = term_hash(term)
        found = [p.index.postings(h) for p in parts]
        df = int(round(sum(float(p.mult[d].sum()) for p, (d, _) in zip(parts, found, strict=True))))
        if df == 0:
            stats.append(TermStats(term, weight, 0, 0.0))
            continue
        term_idf = idf(n, df)
        stats.append(TermStats(term, weight, df, term_idf))
        for score, doc_norm, (docs, tf) in zip(scores, norms, found, strict=True):
            if docs.shape[0]:
                score[docs] += term_score(tf.astype(np.float64), doc_norm[docs], term_idf, weight,
                                          k1)
    return scores, Stats(n, avgdl, stats, k1, b)
