"""BM25 over the session's chunks, plus BM25 over its paths.

Why not SQLite FTS5's ``bm25()``?  An FTS5 index of the chunk cache would
hold every blob of every branch and worktree that was ever indexed, and the
same blob once per embedder.  Its ``N``, ``avgdl`` and document frequencies
would be those of the cache, not of the session, and it cannot weight one
query term (a synonym) less than another.  So genesis keeps its own postings of the
session's chunks (:mod:`genesis_git.search.session_index`, built from the
same ``tokens`` column) and computes BM25 itself, with k1 = 1.2 and
b = 0.75, over exactly the (path, chunk) rows the session maps:

* ``N`` is the number of rows, ``avgdl`` their mean length in tokens, and
  ``df`` counts rows, so a file copied to two paths counts twice;
* IDF is Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))``;
* a query term counts with its weight: 1 for the query's own words, 0.5 for
  a synonym (:func:`genesis_git.text.tokens.analyze_query`).

Path tokens count toward the match through a second BM25 whose documents are
the session's paths (folders, base name and extension, tokenized like any
text).  A third BM25 treats each whole file (the sum of its chunks) as one
document, so that a chunk of a file that matches the query as a whole ranks
above an equally good chunk of a file that does not.  A chunk's lexical
score is::

    bm25(chunk) + PATH_WEIGHT * bm25(path) + FILE_WEIGHT * bm25(file)

and the last two are reported as the ``path`` and ``file`` boosts.  The
weights (4 and 0.5) were chosen on the development sets of the localization
benchmark (``bench/localize.py``): results change little between 2 and 6
for the path and 0.5 and 1 for the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from genesis_git.search.session_index import SessionIndex
from genesis_git.search.termindex import Stats, bm25, term_hash
from genesis_git.text.bm25 import idf, term_score
from genesis_git.text.tokens import QueryTerm

PATH_WEIGHT = 4.0
FILE_WEIGHT = 0.5


@dataclass
class LexicalScores:
    content: np.ndarray  # float64[R]: BM25 of each row's chunk
    path: np.ndarray  # float64[R]: PATH_WEIGHT x BM25 of each row's path
    stats: Stats
    path_stats: Stats
    file: np.ndarray | None = None  # float64[R]: FILE_WEIGHT x BM25 of the row's whole file

    @property
    def total(self) -> np.ndarray:
        if self.file is None:
            return self.content + self.path
        return self.content + self.path + self.file


def file_bm25(idx: SessionIndex, pairs: Sequence[tuple[str, float]]) -> np.ndarray:
    """BM25 of every unified blob as one document (the sum of its chunks), session statistics."""
    n_blobs = idx.blob_mult.shape[0]
    scores = np.zeros(n_blobs, dtype=np.float64)
    n = float(idx.blob_mult.sum())
    if n <= 0:
        return scores
    offs = np.cumsum([0] + [p.n for p in idx.chunk_parts])
    doc_norm = idx.file_norm()
    for term, weight in pairs:
        h = term_hash(term)
        tf = np.zeros(n_blobs, dtype=np.float64)
        for i, part in enumerate(idx.chunk_parts):
            docs, f = part.content.postings(h)
            if docs.shape[0]:
                tf += np.bincount(idx.chunk_blob[docs + offs[i]], weights=f.astype(np.float64),
                                  minlength=n_blobs)
        hit = tf > 0
        df = float(idx.blob_mult[hit].sum())
        if df == 0:
            continue
        scores[hit] += term_score(tf[hit], doc_norm[hit], idf(n, df), weight)
    return scores


def lexical_scores(idx: SessionIndex, terms: Sequence[QueryTerm],
                   path_weight: float | None = None) -> LexicalScores:
    path_weight = PATH_WEIGHT if path_weight is None else path_weight
    pairs = [(t.term, t.weight) for t in terms]
    chunk_scores, stats = bm25(idx.chunk_parts_mult(), pairs)
    path_scores, path_stats = bm25(idx.path_parts_mult(), pairs)
    per_chunk = np.concatenate(chunk_scores) if chunk_scores else np.zeros(0)
    per_path = np.concatenate(path_scores) if path_scores else np.zeros(0)
    content = per_chunk[idx.rows_chunk] if idx.n_rows else np.zeros(0)
    path = path_weight * per_path[idx.rows_path] if idx.n_rows else np.zeros(0)
    file = None
    if FILE_WEIGHT and idx.n_rows:
        file = FILE_WEIGHT * file_bm25(idx, pairs)[idx.chunk_blob[idx.rows_chunk]]
    return LexicalScores(content, path, stats, path_stats, file)
