"""Co-change: the files that changed together with the change's files in the past.

The past is the history of the change's base (:func:`genesis_git.impact.history.load_history`,
the same transactions impact reads, cached by commit).  For every past commit ``t`` of at most
``MAX_TX_FILES`` files that touched ``k`` of the change's ``n`` files, each other file of
``t`` gains ``w(t) · (k / n)² / √|t|``: recent commits weigh more (``w`` halves every
``HALF_LIFE`` commits), a commit that shared more of the change says more (a commit that
touched all of it is the change's closest relative), and a sweeping commit says less about
any one of its files.  The sum is divided by ``(n(f) + 1) ** SPECIFICITY``, where ``n(f)``
is how often ``f`` changed at all: a file that changes with everything (``CHANGES.rst``)
must pair with *these* files more often than with any, not merely often.

The transactions are those of :class:`genesis_git.impact.history.History`, read by
``load_history(…, messages=False)`` without the commit messages check does not need
(``git log --name-only`` of the base's ancestry, at most ``MAX_COMMITS``), and kept in the
store under ``check-history:<commit>`` when there is a store.

The *confidence* of an item is a probability a reviewer can read: of the past commits that
touched the change's files (weighted the same way), the share that touched ``f`` too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from genesis_git.impact.history import HALF_LIFE, MAX_TX_FILES, History

SPECIFICITY = 0.3
SMOOTHING = 2.0  # added to the denominator of the confidence: two commits are not a habit


@dataclass
class CoChange:
    score: float
    confidence: float
    together: int  # past commits that touched ``f`` and one of the seeds
    seed: str  # the seed it paired with most
    seed_count: int  # commits that touched that seed
    pair_count: int  # of those, with ``f``
    shas: list[str] = field(default_factory=list)  # the newest commits that paired them


def cochange(hist: History, seeds: Iterable[str], candidates: set[str] | None = None
             ) -> dict[str, CoChange]:
    """Every file that changed with ``seeds`` (and is in ``candidates``, when given)."""
    seed_set = set(seeds)
    n = len(seed_set)
    if not n or not hist.transactions:
        return {}
    index = {p: i for i, p in enumerate(hist.files)}
    seed_ids = {index[s] for s in seed_set if s in index}
    if not seed_ids:
        return {}
    raw: dict[int, float] = defaultdict(float)
    num: dict[int, float] = defaultdict(float)
    changed: dict[int, float] = defaultdict(float)
    pairs: dict[tuple[int, int], int] = defaultdict(int)
    seed_counts: dict[int, int] = defaultdict(int)
    newest: dict[int, list[int]] = defaultdict(list)
    den = 0.0
    for i, tx in enumerate(hist.transactions):
        w = 0.5 ** (i / HALF_LIFE)
        for f in tx:
            changed[f] += w
        if len(tx) > MAX_TX_FILES:
            continue
        hit = [f for f in tx if f in seed_ids]
        if not hit:
            continue
        share = (len(hit) / n) ** 2
        den += w * share
        for s in hit:
            seed_counts[s] += 1
        weight = w * share / math.sqrt(len(tx))
        for f in tx:
            if f in seed_ids:
                continue
            raw[f] += weight
            num[f] += w * share
            for s in hit:
                pairs[(s, f)] += 1
            if len(newest[f]) < 3:
                newest[f].append(i)
    out: dict[str, CoChange] = {}
    for f, value in raw.items():
        path = hist.files[f]
        if candidates is not None and path not in candidates:
            continue
        best = max(seed_ids, key=lambda s: (pairs.get((s, f), 0), -s))
        shas = [hist.shas[i] for i in newest[f]] if hist.shas else []
        out[path] = CoChange(
            score=value / (changed[f] + 1.0) ** SPECIFICITY,
            confidence=num[f] / (den + SMOOTHING),
            together=sum(pairs.get((s, f), 0) for s in seed_ids),
            seed=hist.files[best], seed_count=seed_counts[best],
            pair_count=pairs.get((best, f), 0), shas=shas)
    return out
