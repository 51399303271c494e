"""Derived files of the library: ``chunks.jsonl`` and the BM25 ``index.json``.

Both are rebuilt from ``manifest.json`` whenever it changes, deterministically,
so they are byte-identical for the same manifest and configuration.

``index.json`` is self-describing for the reader ``query.mjs``: besides the
postings (``term → [chunk, tf, chunk, tf, …]``), chunks as columns (id, card,
section, length normalisation ``norm``, text) and per-term idf, it carries the tokenizer's stopwords and stop characters, the
merged synonym groups, the area vocabulary and the profile's active areas.
The reader therefore never duplicates those tables, and both readers compute
the same floating-point operations on the same stored numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.design.cards import chunk_card, license_known, value_keys
from genesis_git.design.library import (
    CHUNKS,
    INDEX,
    MANIFEST,
    SCHEMA_VERSION,
    Library,
    LibraryUnavailable,
    dump_json,
    inside_repo,
)
from genesis_git.kernel.errors import GenesisError
from genesis_git.text.bm25 import K1, B
from genesis_git.text.tokens import (
    STOPCHARS_ZH,
    STOPWORDS,
    SYNONYM_WEIGHT,
    TOKENIZER_VERSION,
    tokenize,
    unique,
)
from genesis_git.text.tokens import synonym_groups as text_synonym_groups

VALUE_BOOST = 0.5
TAG_BOOST = 0.3
PROFILE_BOOST = 0.3
UNKNOWN_LICENSE_FACTOR = 0.8
DECIMALS = 6

# The vocabulary of design areas: a query is "about" an area when one of its
# terms (synonyms included) is a token of these words; a card is in an area
# when it has tokens of that category or a tag among these words.
AREAS: dict[str, tuple[str, ...]] = {
    "spacing": ("spacing", "间距", "留白", "margin", "padding", "gap", "layout", "布局",
                "边距", "grid", "栅格"),
    "type": ("typography", "type", "font", "字号", "字体", "行高", "text", "文字", "line-height"),
    "palette": ("color", "colour", "palette", "配色", "颜色", "主色", "强调色", "背景色"),
    "contrast": ("contrast", "对比度", "对比"),
    "radius": ("radius", "corner", "shape", "圆角"),
    "motion": ("motion", "animation", "动效", "动画", "easing", "duration", "时长",
               "transition", "过渡"),
    "dark": ("dark", "深色", "暗色", "night", "夜间"),
    "target": ("target", "touch", "tap", "触控", "点击", "热区", "hit"),
    "focus": ("focus", "焦点", "keyboard", "键盘"),
    "empty": ("empty", "空态", "空状态", "placeholder"),
}


def synonym_groups(config: Config) -> list[list[str]]:
    """Default groups plus ``text.synonyms`` of the config, NFKC-normalised and lower-cased."""
    return text_synonym_groups(config.settings.text.synonyms)


def area_terms() -> dict[str, list[str]]:
    return {area: sorted({t for word in words for t in tokenize(word)})
            for area, words in AREAS.items()}


def load_profile(lib: Library) -> dict[str, Any]:
    """``{"file": path or None, "activeAreas": [...]}`` from ``design.profile``."""
    raw = lib.config.settings.design.profile.strip()
    if not raw:
        return {"file": None, "activeAreas": []}
    base = lib.repo_root
    path = Path(raw) if Path(raw).is_absolute() else base / raw
    path = inside_repo(base, path, what="design.profile")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GenesisError(f"design.profile {raw}: no such file",
                           hint="fix design.profile in the config or create the file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenesisError(f"design.profile {raw} cannot be read: {exc}") from None
    active: list[str] = []
    items: Any = data.get("activeAreas", data.get("areas", [])) if isinstance(data, dict) else data
    if isinstance(items, Mapping):
        items = [{"area": k, "status": v} for k, v in items.items()]
    if not isinstance(items, list):
        raise GenesisError(f"design.profile {raw}: expected a list of areas")
    for item in items:
        if isinstance(item, str):
            name, status = item, "active"
        elif isinstance(item, Mapping):
            name, status = str(item.get("area", "")), str(item.get("status", "active"))
        else:
            continue
        name = name.strip().lower()
        if name and status == "active" and name not in active:
            active.append(name)
    return {"file": raw, "activeAreas": sorted(active)}


def _card_entry(card: Mapping[str, Any], terms_by_area: Mapping[str, list[str]],
                span: list[int]) -> dict[str, Any]:
    tag_terms = [unique(tokenize(str(t))) for t in card.get("tags", [])]
    flat = {t for terms in tag_terms for t in terms}
    tokens = card.get("tokens") or {}
    areas = [a for a, words in terms_by_area.items()
             if a in tokens or any(w in flat for w in words)]
    return {
        "id": card["id"],
        "title": card.get("title", ""),
        "status": card.get("status", "active"),
        "weight": float(card.get("weight", 1.0)),
        "licenseFactor": 1.0 if license_known(card) else UNKNOWN_LICENSE_FACTOR,
        "tags": list(card.get("tags", [])),
        "tagTerms": tag_terms,
        "values": value_keys(tokens),
        "areas": areas,
        "chunks": span,
        "tokens": tokens,
        "images": card.get("images", []),
        "source": card.get("source", {}),
    }


def build_index(cards: list[dict[str, Any]], chunks: list[dict[str, Any]], *,
                groups: list[list[str]], profile: Mapping[str, Any],
                max_chunks: int, top: int = 5) -> dict[str, Any]:
    """The BM25 index of ``chunks`` (k1=1.2, b=0.75, idf = ln(1 + (N-df+0.5)/(df+0.5)))."""
    position = {card["id"]: i for i, card in enumerate(cards)}
    term_lists = [tokenize(c["text"]) for c in chunks]
    n = len(chunks)
    avg = (sum(len(t) for t in term_lists) / n) if n else 0.0
    postings: dict[str, list[int]] = {}
    columns: dict[str, list[Any]] = {"id": [], "card": [], "section": [], "norm": [], "text": []}
    for ci, (chunk, terms) in enumerate(zip(chunks, term_lists, strict=True)):
        counts: dict[str, int] = {}
        for t in terms:
            counts[t] = counts.get(t, 0) + 1
        for t, tf in counts.items():
            postings.setdefault(t, []).extend((ci, tf))
        columns["id"].append(chunk["chunkId"])
        columns["card"].append(position[chunk["cardId"]])
        columns["section"].append(chunk["section"])
        columns["norm"].append(K1 * (1 - B + B * len(terms) / avg) if avg else K1)
        columns["text"].append(chunk["text"])
    ordered = dict(sorted(postings.items()))
    idf = {t: math.log(1 + (n - len(p) // 2 + 0.5) / (len(p) // 2 + 0.5))
           for t, p in ordered.items()}
    terms_by_area = area_terms()
    spans: dict[int, list[int]] = {}
    for ci, owner in enumerate(columns["card"]):
        span = spans.setdefault(owner, [ci, ci + 1])
        span[1] = ci + 1
    return {
        "schemaVersion": SCHEMA_VERSION,
        "tokenizer": TOKENIZER_VERSION,
        "params": {"k1": K1, "b": B, "valueBoost": VALUE_BOOST, "tagBoost": TAG_BOOST,
                   "profileBoost": PROFILE_BOOST, "synonymWeight": SYNONYM_WEIGHT,
                   "unknownLicenseFactor": UNKNOWN_LICENSE_FACTOR, "decimals": DECIMALS,
                   "maxChunks": max_chunks, "top": top},
        "text": {"stopwords": sorted(STOPWORDS), "stopchars": sorted(STOPCHARS_ZH),
                 "synonyms": groups},
        "areas": terms_by_area,
        "profile": dict(profile),
        "avgLen": avg,
        "cards": [_card_entry(c, terms_by_area, spans.get(i, [0, 0]))
                  for i, c in enumerate(cards)],
        "chunks": columns,
        "idf": idf,
        "postings": ordered,
    }


def _counts(cards: list[dict[str, Any]], chunks: int) -> dict[str, Any]:
    by_kind: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for card in cards:
        kind = str(card.get("source", {}).get("kind", "?"))
        by_kind[kind] = by_kind.get(kind, 0) + 1
        status = str(card.get("status", "active"))
        by_status[status] = by_status.get(status, 0) + 1
    return {"cards": len(cards), "chunks": chunks, "byKind": dict(sorted(by_kind.items())),
            "byStatus": dict(sorted(by_status.items()))}


def save_library(lib: Library, manifest: dict[str, Any]) -> list[str]:
    """Write the manifest and rebuild ``chunks.jsonl`` and ``index.json``; return what changed."""
    cards: list[dict[str, Any]] = manifest["cards"]
    chunks = [c for card in cards for c in chunk_card(card)]
    manifest["counts"] = _counts(cards, len(chunks))
    index = build_index(cards, chunks, groups=synonym_groups(lib.config),
                        profile=load_profile(lib), max_chunks=lib.config.settings.design.max_chunks,
                        top=lib.config.settings.design.top)
    written: list[str] = []
    if lib.write_text(MANIFEST, dump_json(manifest)):
        written.append(MANIFEST)
    lines = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chunks)
    if lib.write_text(CHUNKS, lines):
        written.append(CHUNKS)
    if lib.write_text(INDEX, json.dumps(index, ensure_ascii=False, separators=(",", ":")) + "\n"):
        written.append(INDEX)
    return written


_REQUIRED = ("tokenizer", "params", "text", "areas", "profile", "avgLen", "cards", "chunks",
             "idf", "postings")


def load_index(lib: Library) -> dict[str, Any]:
    """The parsed ``index.json``; :class:`LibraryUnavailable` when it is missing or corrupt."""
    target = lib.path(INDEX)
    shown = lib.display(target)
    hint = "run `genesis design init` to rebuild it from manifest.json"
    if not lib.exists():
        raise LibraryUnavailable(f"no design library at {lib.display(lib.root)}",
                                 hint="run `genesis design init`")
    if not target.is_file():
        raise LibraryUnavailable(f"{shown} is missing", hint=hint)
    try:
        data = json.loads(target.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LibraryUnavailable(f"{shown} is corrupt: {exc}", hint=hint) from None
    if not isinstance(data, dict) or any(k not in data for k in _REQUIRED):
        raise LibraryUnavailable(f"{shown} is corrupt: required fields are missing", hint=hint)
    if data["tokenizer"] != TOKENIZER_VERSION:
        raise LibraryUnavailable(f"{shown} was built with tokenizer {data['tokenizer']}",
                                 hint=hint)
    chunks = data["chunks"]
    if (not isinstance(chunks, dict) or not isinstance(data["postings"], dict)
            or any(not isinstance(chunks.get(k), list) or len(chunks[k]) != len(chunks["id"])
                   for k in ("id", "card", "section", "norm", "text"))):
        raise LibraryUnavailable(f"{shown} is corrupt: bad chunks or postings", hint=hint)
    return data
