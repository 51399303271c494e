"""BM25 over the session's chunks, plus BM25 over its paths.

Why not FTS5's ``bm25()``?  ``rag_chunk_fts`` indexes the whole shared cache:
every blob of every branch and worktree that was ever indexed, and the same
blob once per embedder.  Its ``N``, ``avgdl`` and document frequencies are
those of the cache, not of the session, and it cannot weight one query term
(a synonym) less than another.  So genesis keeps its own postings of the
session's chunks (:mod:`genesis_git.retrieve.session_index`, built from the
same ``tokens`` column) and computes BM25 itself, with k1 = 1.2 and
b = 0.75, over exactly the (path, chunk) rows the session maps:

* ``N`` is the number of rows, ``avgdl`` their mean length in tokens, and
  ``df`` counts rows, so a file copied to two paths counts twice;
* IDF is Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))``;
* a query term counts with its weight: 1 for the query's own words, 0.5 for
  a synonym (:func:`genesis_git.text.analyze_query`).

Path tokens count toward the match through a second BM25 whose documents are
the session's paths (folders, base name and extension, tokenized like any
text).  A chunk's lexical score is its content BM25 plus
:data:`PATH_WEIGHT` times its path's BM25; the path part is reported as the
``path`` boost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from genesis_git.retrieve.session_index import SessionIndex
from genesis_git.retrieve.termindex import Stats, bm25
from genesis_git.text import QueryTerm

K1 = 1.2
B = 0.75
PATH_WEIGHT = 1.0


@dataclass
class LexicalScores:
    content: np.ndarray  # float64[R]: BM25 of each row's chunk
    path: np.ndarray  # float64[R]: PATH_WEIGHT x BM25 of each row's path
    stats: Stats
    path_stats: Stats

    @property
    def total(self) -> np.ndarray:
        return self.content + self.path


def lexical_scores(idx: SessionIndex, terms: Sequence[QueryTerm],
                   path_weight: float = PATH_WEIGHT) -> LexicalScores:
    pairs = [(t.term, t.weight) for t in terms]
    chunk_scores, stats = bm25(idx.chunk_parts_mult(), pairs, k1=K1, b=B)
    path_scores, path_stats = bm25(idx.path_parts_mult(), pairs, k1=K1, b=B)
    per_chunk = np.concatenate(chunk_scores) if chunk_scores else np.zeros(0)
    per_path = np.concatenate(path_scores) if path_scores else np.zeros(0)
    content = per_chunk[idx.rows_chunk] if idx.n_rows else np.zeros(0)
    path = path_weight * per_path[idx.rows_path] if idx.n_rows else np.zeros(0)
    return LexicalScores(content, path, stats, path_stats)
