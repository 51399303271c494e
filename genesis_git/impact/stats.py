"""Impact's term statistics read from the session's search base instead of every chunk's text.

The base holds the postings (term frequencies per chunk) and the length of
every chunk the session maps, and which path maps which chunks.  That is all
the ``text`` and ``fields`` signals need: a file's term frequency is the sum
over its chunks plus its path tokens, its length likewise.  Only the query's
terms (and the columns of the tables it names) are looked up, so a call
touches a few postings of a memory-mapped file.  The numbers are those of
:meth:`genesis_git.impact.corpus_text.TextCorpus.text_scores` over the loaded text.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from genesis_git.search.termindex import term_hash

if TYPE_CHECKING:
    from genesis_git.impact.corpus import Corpus
    from genesis_git.search.session_index import SessionIndex

K1 = 1.2
B = 0.75


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class TextStats:
    def __init__(self, idx: SessionIndex) -> None:
        self.idx = idx
        self._rows: tuple[list[str], np.ndarray, np.ndarray] | None = None
        self._dl_u = np.concatenate([c.content.dl for c in idx.chunk_parts]).astype(np.float64) \
            if idx.chunk_parts else np.zeros(0)
        self._cuts = np.cumsum([0] + [c.n for c in idx.chunk_parts])

    def _layout(self, corpus: Corpus) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The corpus's paths, the file of every row and every row's length."""
        if self._rows is None:
            paths = list(corpus.files)
            pos = {p: i for i, p in enumerate(paths)}
            map_file = np.fromiter((pos[p] for p in self.idx.map.paths), dtype=np.int64,
                                   count=len(self.idx.map.paths))
            row_file = map_file[self.idx.rows_map]
            dl_rows = self._dl_u[self.idx.rows_chunk]
            self._rows = (paths, row_file, dl_rows)
        return self._rows

    def term_rows(self, term: str) -> np.ndarray:
        """The frequency of ``term`` in every row (path, chunk) of the session."""
        tf_u = np.zeros(int(self._cuts[-1]), dtype=np.float64)
        h = term_hash(term)
        for part, off in zip(self.idx.chunk_parts, self._cuts[:-1], strict=False):
            docs, tf = part.content.postings(h)
            if docs.shape[0]:
                tf_u[int(off) + docs.astype(np.int64)] = tf
        return tf_u[self.idx.rows_chunk]

    def text_scores(self, corpus: Corpus, weights: dict[str, float]
                    ) -> tuple[dict[str, float], dict[str, float], set[str], dict[str, set[str]]]:
        """As :meth:`genesis_git.impact.corpus_text.TextCorpus.text_scores`."""
        paths, row_file, dl_rows = self._layout(corpus)
        n_files_all = len(paths)
        terms = set(weights)
        path_tf: dict[str, Counter[int]] = {t: Counter() for t in terms}
        path_len = np.zeros(n_files_all, dtype=np.float64)
        for i, p in enumerate(paths):
            toks = corpus.files[p].path_tokens
            path_len[i] = len(toks)
            for t in toks:
                if t in terms:
                    path_tf[t][i] += 1
        file_len = path_len + np.bincount(row_file, weights=dl_rows, minlength=n_files_all)
        n_files = max(n_files_all, 1)
        avg_file = float(file_len.sum()) / n_files or 1.0
        n_rows = max(int(dl_rows.shape[0]), 1)
        avg_chunk = float(dl_rows.sum()) / n_rows or 1.0
        file_score = np.zeros(n_files_all, dtype=np.float64)
        row_score = np.zeros(dl_rows.shape[0], dtype=np.float64)
        row_hit = np.zeros(dl_rows.shape[0], dtype=bool)
        matched: set[str] = set()
        file_terms: dict[int, set[str]] = {}
        for term, w in weights.items():
            tf_rows = self.term_rows(term)
            ftf = np.bincount(row_file, weights=tf_rows, minlength=n_files_all)
            for i, c in path_tf[term].items():
                ftf[i] += c
            hit = np.flatnonzero(ftf > 0)
            if hit.shape[0]:
                matched.add(term)
                idf = _idf(n_files, int(hit.shape[0]))
                f = ftf[hit]
                file_score[hit] += w * (idf * f * (K1 + 1) / (
                    f + K1 * (1 - B + B * file_len[hit] / avg_file)))
                for i in hit.tolist():
                    file_terms.setdefault(i, set()).add(term)
            rhit = np.flatnonzero(tf_rows > 0)
            if rhit.shape[0]:
                cidf = _idf(n_rows, int(rhit.shape[0]))
                f = tf_rows[rhit]
                row_score[rhit] += w * (cidf * f * (K1 + 1) / (
                    f + K1 * (1 - B + B * dl_rows[rhit] / avg_chunk)))
                row_hit[rhit] = True
        files = {paths[i]: float(file_score[i]) for i in np.flatnonzero(file_score > 0).tolist()}
        best_file = np.zeros(n_files_all, dtype=np.float64)
        scored = np.flatnonzero(row_hit)
        np.maximum.at(best_file, row_file[scored], row_score[scored])
        best = {paths[i]: float(best_file[i]) for i in np.flatnonzero(best_file > 0).tolist()}
        return files, best, matched, {paths[i]: t for i, t in file_terms.items()}

    def column_share(self, corpus: Corpus, cols: list[str]) -> dict[str, float]:
        """The share of ``cols`` each file's chunks mention (paths do not count)."""
        paths, row_file, _ = self._layout(corpus)
        seen = np.zeros(len(paths), dtype=np.float64)
        for col in dict.fromkeys(cols):
            rows = np.flatnonzero(self.term_rows(col) > 0)
            if rows.shape[0]:
                files = np.zeros(len(paths), dtype=bool)
                files[row_file[rows]] = True
                seen += files
        n = len(cols)
        return {paths[i]: float(seen[i]) / n for i in np.flatnonzero(seen).tolist()}
