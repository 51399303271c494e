"""Ranking, reciprocal rank fusion, and the stable order of results.

* A ranked list holds the rows with a positive score, best first, cut at a
  candidate limit.  Hybrid search fuses three: *lexical* (chunk BM25 plus the
  path and file boosts), *path* (rows whose path matches first, by the BM25
  of the path's tokens, then the others by lexical score) and *vector*
  (cosine).
* Reciprocal rank fusion: ``rrf(row) = sum over lists of 1 / (k + rank)``,
  ranks from 1, ``k = search.rrf_k`` (60 by default).  A row missing from a
  list gets nothing from it.
* Ordering is stable everywhere: score descending, then path, then start
  line (then chunk id, which two rows of one path never share).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from genesis_git.search.session_index import SessionIndex


def stable_order(idx: SessionIndex, rows: np.ndarray, scores: np.ndarray,
                 tiebreak: np.ndarray | None = None) -> np.ndarray:
    """``rows`` sorted by score descending, then ``tiebreak`` descending when given,
    then path, then start line, then chunk.

    The session's map rows are read in path order, so a row's map index is
    its path's rank and the whole sort is one ``lexsort``.
    """
    chunks = idx.rows_chunk[rows]
    keys = [chunks, idx.starts[chunks], idx.rows_map[rows]]
    if tiebreak is not None:
        keys.append(-tiebreak)
    return rows[np.lexsort((*keys, -scores))]


def top_rows(idx: SessionIndex, scores: np.ndarray, mask: np.ndarray, limit: int,
             tiebreak: np.ndarray | None = None) -> list[int]:
    """Rows with a positive score under ``mask``, best first, at most ``limit``.

    Rows tied with the last one kept are all considered before the cut, so
    that the cut itself follows the stable order.
    """
    valid = np.flatnonzero(mask & (scores > 0))
    if valid.shape[0] > limit:
        vals = scores[valid]
        kth = np.partition(vals, vals.shape[0] - limit)[vals.shape[0] - limit]
        valid = valid[vals >= kth]
    second = tiebreak[valid] if tiebreak is not None else None
    return [int(r) for r in stable_order(idx, valid, scores[valid], second)[:limit]]


def path_order(path: np.ndarray, lexical: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The path list's order as one score per row: rows whose path matches, by path BM25,
    above every other row, which follow by lexical score."""
    return np.where(mask & (path > 0), path + lexical.max(initial=0.0) + 1.0, lexical)


def path_rows(idx: SessionIndex, path: np.ndarray, lexical: np.ndarray, mask: np.ndarray,
              limit: int) -> list[int]:
    """The path list: rows whose path matches, by path BM25 (ties: lexical score), then
    the other rows with a positive lexical score, by that score (:func:`path_order`)."""
    return top_rows(idx, path_order(path, lexical, mask), mask, limit, tiebreak=lexical)


@dataclass
class Fused:
    score: float
    ranks: dict[str, int] = field(default_factory=dict)


def rrf(lists: Mapping[str, Sequence[int]], k: int = 60) -> dict[int, Fused]:
    """Reciprocal rank fusion of ranked row lists."""
    fused: dict[int, Fused] = {}
    for name, rows in lists.items():
        for rank, row in enumerate(rows, start=1):
            item = fused.setdefault(row, Fused(0.0))
            item.score += 1.0 / (k + rank)
            item.ranks[name] = rank
    return fused


def ordered(idx: SessionIndex, scores: dict[int, float]) -> list[int]:
    """Rows of ``scores`` in the stable order."""
    if not scores:
        return []
    rows = np.fromiter(scores, dtype=np.int64, count=len(scores))
    vals = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    return [int(r) for r in stable_order(idx, rows, vals)]


def ranks_beyond(channels: Mapping[str, tuple[np.ndarray, np.ndarray]], rows: Sequence[int],
                 k: int = 60) -> dict[int, Fused]:
    """The fusion of rows that made none of the cut lists (a definition that exact-name
    search puts first): each row's rank in each list had the list not been cut (one plus
    the rows under that list's mask that score more; a row that scores nothing there has
    no rank in it), and the same ``1 / (k + rank)`` sum, so that its score and its
    explanation say where it stood."""
    out = {row: Fused(0.0) for row in rows}
    if not out:
        return out
    asked = np.fromiter(out, dtype=np.int64, count=len(out))
    for name, (values, mask) in channels.items():
        value = values[asked]
        ranked = (value > 0) & mask[asked]
        if not ranked.any():
            continue
        mine = value[ranked]
        # how many rows under the mask score more than each of ``mine``: each scoring row
        # falls between two of ``mine`` (sorted), and a row beats those below it
        order = np.sort(mine)
        scoring = values[mask & (values > order[0])]
        below = np.bincount(np.searchsorted(order, scoring, side="left"),
                            minlength=order.shape[0] + 1)
        more = np.cumsum(below[::-1])[::-1][1:]  # more[j]: rows above order[j]
        ranks = 1 + more[np.searchsorted(order, mine, side="left")]
        for row, rank in zip(asked[ranked].tolist(), ranks.tolist(), strict=True):
            item = out[row]
            item.score += 1.0 / (k + rank)
            item.ranks[name] = rank
    return out
