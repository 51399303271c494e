"""``design check-refs``: ``designRefs`` in a spec or audit document, checked against the library.

A *spec* holds ``criteria`` and an *audit* holds ``checks``; each item may
name cards in ``designRefs`` (a list) or ``designRef`` (one id), and may give
measured ``actual`` values (``{"radius.card": "19vp"}``).

- a ref to an unknown card → error ``E_DESIGN_REF_UNKNOWN``;
- a ref to a blocked card → error ``E_DESIGN_REF_BLOCKED``;
- a ref to a card with ``license: unknown`` → warning ``W_DESIGN_REF_LICENSE``;
- an aesthetic ``must`` without any ref while the library has cards →
  warning ``W_AEST_NO_DESIGN_REF``.

The report's ``comparison`` puts each ref's tokens next to the item's
``actual`` values (the "reference comparison" column).  References are
evidence, never a verdict.  When the library cannot be read the check
degrades to one warning and passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from genesis_git.design.cards import license_known, token_value_text
from genesis_git.design.feedback import card_id
from genesis_git.design.library import Library, LibraryUnavailable, read_json_input
from genesis_git.kernel.errors import UsageError

_AESTHETIC = {"aesthetic", "aesthetics", "aes", "visual", "审美"}


def _refs_of(item: Mapping[str, Any]) -> list[str]:
    raw = item.get("designRefs", item.get("designRef"))
    if raw is None:
        return []
    values = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
    return [str(v) for v in values if str(v).strip()]


def _is_aesthetic_must(item: Mapping[str, Any]) -> bool:
    level = str(item.get("level", item.get("priority", item.get("severity", "")))).lower()
    kind = {str(item.get(k, "")).lower() for k in ("dimension", "category", "type", "area")}
    aesthetic = bool(item.get("aesthetic")) or bool(kind & _AESTHETIC) or \
        str(item.get("id", "")).upper().startswith(("AES", "DW-AES"))
    return level == "must" and aesthetic


def _pairs(tokens: Mapping[str, list[dict[str, Any]]],
           actual: Mapping[str, Any]) -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = []
    for cat, items in tokens.items():
        for tok in items:
            name = str(tok.get("name", cat))
            key = f"{cat}.{name}"
            found = next((actual[k] for k in (key, name, cat) if k in actual), None)
            pairs.append({"token": key, "reference": token_value_text(tok), "actual": found})
    return pairs


def load_document(lib: Library, file: str | Path) -> tuple[str, dict[str, Any]]:
    path, data, _ = read_json_input(lib.repo_root, file, what="document", label=str(file),
                                 unreadable="is not valid JSON")
    if not isinstance(data, dict):
        raise UsageError(f"{file}: expected a JSON object with criteria or checks")
    return lib.display(path), data


def check_refs(lib: Library, file: str | Path) -> dict[str, Any]:
    """The report; ``ok`` is false when any ref is unknown or blocked."""
    shown, doc = load_document(lib, file)
    kind = str(doc.get("kind") or ("audit" if "checks" in doc else "spec"))
    items = doc.get("checks") if kind == "audit" else doc.get("criteria")
    if items is None:
        items = doc.get("criteria", doc.get("checks"))
    if not isinstance(items, list):
        raise UsageError(f"{file}: no criteria or checks list",
                         hint='a spec has "criteria": [...], an audit "checks": [...]')
    errors: list[dict[str, Any]] = []
    warnings: list[dict[str, Any]] = []
    comparison: list[dict[str, Any]] = []
    refs: list[str] = []
    library: dict[str, Any]
    try:
        manifest = lib.load_manifest()
        cards = {c["id"]: c for c in manifest["cards"]}
        library = {"available": True, "cards": len(cards)}
    except LibraryUnavailable as exc:
        cards, library = {}, {"available": False, "cards": 0, "problem": str(exc)}
        warnings.append({"code": "W_DESIGN_LIBRARY_UNAVAILABLE", "item": None,
                         "message": f"design library unavailable, designRefs not checked: {exc}"})
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            continue
        name = str(item.get("id", f"#{n}"))
        item_refs = _refs_of(item)
        if not item_refs and library["available"] and cards and _is_aesthetic_must(item):
            warnings.append({"code": "W_AEST_NO_DESIGN_REF", "item": name,
                             "message": f"{name}: aesthetic must without designRefs while the "
                                        "library has cards"})
        if not library["available"]:
            continue
        raw_actual = item.get("actual")
        actual: dict[str, Any] = raw_actual if isinstance(raw_actual, dict) else {}
        for raw_ref in item_refs:
            try:
                ref = card_id(raw_ref)
            except UsageError:
                ref = raw_ref
            card = cards.get(ref)
            if card is None:
                errors.append({"code": "E_DESIGN_REF_UNKNOWN", "item": name, "ref": raw_ref,
                               "message": f"{name}: designRef {raw_ref} is not in the library"})
                continue
            if card.get("status") == "blocked":
                errors.append({"code": "E_DESIGN_REF_BLOCKED", "item": name, "ref": ref,
                               "message": f"{name}: designRef {ref} is blocked"})
                continue
            if not license_known(card):
                warnings.append({"code": "W_DESIGN_REF_LICENSE", "item": name, "ref": ref,
                                 "message": f"{name}: {ref} has license unknown; state the risk"})
            if ref not in refs:
                refs.append(ref)
            comparison.append({"item": name, "ref": ref, "title": card["title"],
                               "source": card.get("source", {}),
                               "refTokens": card.get("tokens", {}), "actual": actual,
                               "pairs": _pairs(card.get("tokens", {}), actual)})
    return {"document": shown, "kind": kind, "ok": not errors, "library": library,
            "errors": errors, "warnings": warnings, "design": {"refs": refs},
            "comparison": comparison}
