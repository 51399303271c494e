"""Deterministic search of the design library: BM25 plus structured boosts.

``score = weight × licenseFactor × (bm25 + tokenBoost + profileBoost)``

- ``bm25``: k1 = 1.2, b = 0.75 over chunks; a query term weighs 1.0, a synonym
  0.5 (:func:`genesis_git.text.tokens.analyze_query`); a term contributes
  ``w × idf × tf × (k1 + 1) / (tf + norm)``, summed in query-term order; a
  card's bm25 is its best chunk's (the first such chunk on a tie).
- ``tokenBoost``: +0.5 for each colour or numeric value of the query that is
  exactly one of the card's token values, +0.3 for each word of the query
  that matches a tag of the card, itself or through a synonym.
- ``profileBoost``: +0.3 when an area of the query is an active area of the
  profile and an area of the card.
- ``weight``: from feedback (0.5–1.5); ``licenseFactor`` 0.8 for ``license:
  unknown``.  Blocked cards are never returned.

Scores are rounded to 6 decimals as ``floor(x × 10⁶ + 0.5) / 10⁶`` and sorted
by score, then card id.  ``query.mjs`` performs the same operations in the
same order on the same stored numbers, so both give identical results.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from genesis_git.design.cards import query_values
from genesis_git.design.index import load_index
from genesis_git.design.library import Library
from genesis_git.kernel.errors import UsageError
from genesis_git.text.tokens import SynonymTable, analyze_query


def rnd(x: float) -> float:
    return math.floor(x * 1000000 + 0.5) / 1000000


def fmt6(x: float) -> str:
    """A rounded score as text: ``4.820000`` → ``4.82`` (the reader uses ``toFixed(6)``)."""
    return f"{x:.6f}".rstrip("0").rstrip(".")


@functools.lru_cache(maxsize=4)
def _table_of(groups: tuple[tuple[str, ...], ...]) -> SynonymTable:
    return SynonymTable(groups)


def _table(index: Mapping[str, Any]) -> SynonymTable:
    return _table_of(tuple(tuple(g) for g in index["text"]["synonyms"]))


def search_index(index: Mapping[str, Any], query: str, top: int = 5) -> dict[str, Any]:
    """Score ``query`` against a loaded index; the pure core shared by every caller."""
    if not query.strip():
        raise UsageError("the query is empty", hint='e.g. genesis design search "深色 卡片 间距"')
    if top < 1:
        raise UsageError("--top must be at least 1")
    params = index["params"]
    terms = analyze_query(query, _table(index))
    postings = index["postings"]
    idf = index["idf"]
    chunks = index["chunks"]
    norms = chunks["norm"]
    owners = chunks["card"]
    n_chunks = len(owners)
    cards = index["cards"]
    k1p1 = params["k1"] + 1
    acc: dict[int, float] = {}
    for qt in terms:
        plist = postings.get(qt.term)
        if not plist:
            continue
        w = qt.weight * idf[qt.term]
        for i in range(0, len(plist), 2):
            ci, tf = plist[i], plist[i + 1]
            acc[ci] = acc.get(ci, 0.0) + w * tf * k1p1 / (tf + norms[ci])
    best: dict[int, tuple[float, int]] = {}
    for ci in sorted(acc):
        owner = owners[ci]
        score = acc[ci]
        if owner not in best or score > best[owner][0]:
            best[owner] = (score, ci)
    qset = {qt.term for qt in terms}
    roots: dict[str, set[str]] = {}
    for qt in terms:
        root = qt.term if qt.origin == "query" else qt.origin.split(":", 1)[1]
        roots.setdefault(root, set()).add(qt.term)
    qvalues = query_values(query)
    qareas = [a for a, words in index["areas"].items() if any(w in qset for w in words)]
    active = index["profile"].get("activeAreas", [])
    results: list[dict[str, Any]] = []
    warnings: list[str] = []
    for idx, card in enumerate(cards):
        if card["status"] == "blocked":
            continue
        bm25, ci = best.get(idx, (0.0, -1))
        nv = sum(1 for v in qvalues if v in card["values"])
        tag_set = {t for tag in card["tagTerms"] for t in tag}
        nt = sum(1 for members in roots.values() if not members.isdisjoint(tag_set))
        token_boost = params["valueBoost"] * nv + params["tagBoost"] * nt
        if bm25 == 0 and token_boost == 0:
            continue
        matched = any(a in active and a in qareas for a in card["areas"])
        profile_boost = params["profileBoost"] if matched else 0.0
        raw = bm25 + token_boost + profile_boost
        score = card["weight"] * card["licenseFactor"] * raw
        if ci < 0:
            ci = card["chunks"][0]
        inside = 0 <= ci < n_chunks
        results.append({
            "cardId": card["id"],
            "title": card["title"],
            "score": rnd(score),
            "breakdown": {"bm25": rnd(bm25), "tokenBoost": rnd(token_boost),
                          "profileBoost": rnd(profile_boost), "weight": card["weight"],
                          "licenseFactor": card["licenseFactor"]},
            "section": chunks["section"][ci] if inside else "",
            "snippet": chunks["text"][ci] if inside else "",
            "tags": card["tags"],
            "tokens": card["tokens"],
            "images": card["images"],
            "source": card["source"],
        })
    results.sort(key=lambda r: (-r["score"], r["cardId"]))
    results = results[:top]
    if n_chunks > params["maxChunks"]:
        warnings.append(f"the library has {n_chunks} chunks, more than "
                        f"design.max_chunks={params['maxChunks']}; search still runs")
    for r in results:
        if r["breakdown"]["licenseFactor"] != 1:
            warnings.append(f"{r['cardId']}: license unknown; ranked lower and kept out "
                            "of briefs")
    return {
        "query": query,
        "ranker": "lexical",
        "reranked": False,
        "terms": [{"term": t.term, "weight": t.weight, "origin": t.origin} for t in terms],
        "results": results,
        "warnings": warnings,
    }


def search(lib: Library, query: str, top: int | None = None) -> dict[str, Any]:
    """Search the library at ``lib``; :class:`LibraryUnavailable` when its index is unusable."""
    index = load_index(lib)
    k = top if top is not None else lib.config.settings.design.top
    result = search_index(index, query, k)
    result["library"] = lib.display(lib.root)
    stale = stale_settings(lib, index)
    if stale:
        result["warnings"].append(f"the index was built with other {stale}; run `genesis design "
                                  "init` to rebuild it")
    return result


def stale_settings(lib: Library, index: Mapping[str, Any]) -> str:
    """Which config-derived tables differ from those the index was built with ("" if none)."""
    from genesis_git.design.index import load_profile, synonym_groups
    from genesis_git.kernel.errors import GenesisError

    stale: list[str] = []
    if synonym_groups(lib.config) != index["text"]["synonyms"]:
        stale.append("synonyms (text.synonyms)")
    try:
        areas = load_profile(lib)["activeAreas"]
    except GenesisError:
        areas = None
    if areas != index["profile"].get("activeAreas", []):
        stale.append("profile areas (design.profile)")
    return " and ".join(stale)
