"""BM25, the one lexical scorer of search and impact investigation.

``score(t, d) = weight × idf(t) × tf × (k1 + 1) / (tf + k1 × (1 - b + b × dl / avgdl))``
with Lucene's ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, which is never
negative.  The functions take floats or numpy arrays alike: retrieval scores
a whole index at once (:mod:`genesis_git.search.termindex`), impact one
file at a time (:mod:`genesis_git.impact.corpus_text`).

The design library keeps its own copy of the arithmetic, because its reader
``query.mjs`` must reproduce its scores byte for byte; it takes ``K1`` and
``B`` from here.
"""

from __future__ import annotations

import math
from typing import Any

K1 = 1.2
B = 0.75


def idf(n: float, df: float) -> float:
    """Lucene's idf of a term found in ``df`` of ``n`` documents."""
    return math.log1p((n - df + 0.5) / (df + 0.5))


def norm(dl: Any, avgdl: float, k1: float = K1, b: float = B) -> Any:
    """The length normalisation of a document of ``dl`` tokens."""
    return k1 * (1.0 - b + b * dl / avgdl)


def term_score(tf: Any, doc_norm: Any, term_idf: float, weight: float = 1.0,
               k1: float = K1) -> Any:
    """One term's share of a document's score."""
    return weight * term_idf * tf * (k1 + 1.0) / (tf + doc_norm)
