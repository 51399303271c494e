"""Cards: validation, design-token values, and chunking by section.

A card is a JSON object (see the manifest).  It is cut into chunks by section
(``summary``, ``tokens``, ``rationale``, ``dos``, ``donts``), each at most
:data:`MAX_CHUNK_CHARS` characters, and each chunk carries the sha256 of its
normalised text (lower-cased, whitespace folded).

Token *values* are the strings that ``tokenBoost`` matches exactly: colours
(``#faf8f4``) and numbers with or without their unit (``20``, ``20vp``,
``4.5:1``).  :data:`VALUE_PATTERN` finds them in a query; the reader
``query.mjs`` uses the same pattern, so change both together.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from genesis_git.kernel.errors import GenesisError

MAX_CHUNK_CHARS = 400
SECTIONS = ("summary", "tokens", "rationale", "dos", "donts")
KINDS = ("official", "rule", "user", "project")
UNKNOWN_LICENSE = "unknown"

VALUE_PATTERN = (r"#(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})(?![0-9A-Za-z])"
                 r"|(?<![0-9A-Za-z.#])(\d{1,6}(?:\.\d{1,3})?)(:1|[A-Za-z]{1,3}|%)?(?![0-9A-Za-z])")
_VALUE = re.compile(VALUE_PATTERN)

# Content fields: what a card says (as opposed to its status, weight and times).
CONTENT_FIELDS = ("title", "summary", "tags", "source", "citation", "tokens", "rationale",
                  "dos", "donts", "images")


class CardRejected(GenesisError):
    """A card that cannot enter the library; the message is the reason."""


def fmt_num(value: float) -> str:
    """``20.0`` → ``20``, ``4.50`` → ``4.5`` (the reader formats numbers the same way)."""
    f = float(value)
    return str(int(f)) if f.is_integer() else repr(f)


def query_values(text: str) -> list[str]:
    """Colour and numeric values of ``text``, normalised, unique, in order of appearance."""
    import unicodedata

    out: list[str] = []
    for m in _VALUE.finditer(unicodedata.normalize("NFKC", text)):
        if m.group(1) is None:
            key = m.group(0).lower()
        else:
            key = fmt_num(float(m.group(1))) + (m.group(2) or "").lower()
        if key not in out:
            out.append(key)
    return out


def token_value_text(token: Mapping[str, Any]) -> str:
    value = token.get("value")
    unit = str(token.get("unit", "") or "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt_num(value) + unit
    return f"{value}{unit}" if unit else str(value)


def value_keys(tokens: Mapping[str, Iterable[Mapping[str, Any]]]) -> list[str]:
    """Every value a query may match exactly, sorted."""
    keys: set[str] = set()
    for items in tokens.values():
        for tok in items:
            value = tok.get("value")
            unit = str(tok.get("unit", "") or "").strip().lower()
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                keys.add(fmt_num(value))
                if unit:
                    keys.add(fmt_num(value) + unit)
            elif isinstance(value, str):
                found = query_values(value + unit)
                keys.update(found)
                for key in found:
                    m = re.match(r"\d+(?:\.\d+)?", key)
                    if m:
                        keys.add(m.group(0))
    return sorted(keys)


def normalize_text(text: str) -> str:
    return " ".join(text.lower().split())


def chunk_sha(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


_CUTS = ("\n", "。", "；", ";", ". ", "，", ", ", " ")


def split_text(text: str, limit: int = MAX_CHUNK_CHARS) -> list[str]:
    """Pieces of at most ``limit`` characters, cut at a line, sentence or word where possible."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > limit:
        cut = -1
        for sep in _CUTS:
            at = text.rfind(sep, limit // 2, limit)
            if at > 0:
                cut = at + len(sep.rstrip()) if sep.strip() else at
                break
        if cut <= 0:
            cut = limit
        head, text = text[:cut].strip(), text[cut:].strip()
        if head:
            pieces.append(head)
    if text:
        pieces.append(text)
    return pieces


def section_texts(card: Mapping[str, Any]) -> list[tuple[str, str]]:
    source = card.get("source") or {}
    head = [str(card.get("title", "")), str(card.get("summary", "")),
            " ".join(str(t) for t in card.get("tags", [])), str(source.get("ref", ""))]
    tokens = card.get("tokens") or {}
    token_lines = [f"{cat} {tok.get('name', '')} {token_value_text(tok)}".strip()
                   for cat, items in tokens.items() for tok in items]
    return [
        ("summary", "\n".join(p for p in head if p.strip())),
        ("tokens", "; ".join(token_lines)),
        ("rationale", str(card.get("rationale", ""))),
        ("dos", "\n".join(str(d) for d in card.get("dos", []))),
        ("donts", "\n".join(str(d) for d in card.get("donts", []))),
    ]


def chunk_card(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The chunks of one card, in section order; identical texts within a card are kept once."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for section, text in section_texts(card):
        pieces = split_text(text)
        for n, piece in enumerate(pieces, start=1):
            sha = chunk_sha(piece)
            if sha in seen:
                continue
            seen.add(sha)
            suffix = "" if len(pieces) == 1 else f"-{n}"
            out.append({"chunkId": f"{card['id']}#{section}{suffix}", "cardId": card["id"],
                        "section": section, "text": piece, "sha": sha})
    return out


def _str_list(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise CardRejected(f"{field} must be a list of strings")
    return [str(v).strip() for v in value if str(v).strip()]


def normalize_tokens(raw: Any) -> dict[str, list[dict[str, Any]]]:
    """``{category: [{name, value, unit?}]}``; categories lower-case, order kept."""
    if raw in (None, {}):
        return {}
    if not isinstance(raw, Mapping):
        raise CardRejected("tokens must be an object of categories")
    out: dict[str, list[dict[str, Any]]] = {}
    for cat, items in raw.items():
        if not isinstance(items, list):
            raise CardRejected(f"tokens.{cat} must be a list")
        clean: list[dict[str, Any]] = []
        for item in items:
            if not isinstance(item, Mapping) or "value" not in item:
                raise CardRejected(f"tokens.{cat}: every token needs a value")
            value = item["value"]
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise CardRejected(f"tokens.{cat}: a value must be a number or a string")
            tok: dict[str, Any] = {"name": str(item.get("name", cat)), "value": value}
            if item.get("unit"):
                tok["unit"] = str(item["unit"])
            clean.append(tok)
        if clean:
            out[str(cat).strip().lower()] = clean
    return out


def normalize_source(raw: Any, *, kind: str, license_value: Any = None) -> dict[str, Any]:
    """``{kind, ref, license, url?}``; a missing license rejects the card."""
    if isinstance(raw, str):
        source: dict[str, Any] = {"ref": raw}
    elif isinstance(raw, Mapping):
        source = dict(raw)
    elif raw is None:
        source = {}
    else:
        raise CardRejected("source must be a string or an object")
    lic = license_value if license_value is not None else source.get("license")
    if lic is None or not str(lic).strip():
        raise CardRejected('no license (add "license": "CC-BY-4.0", or "unknown" to store it '
                           "with a warning)")
    out: dict[str, Any] = {"kind": str(source.get("kind") or kind),
                           "ref": str(source.get("ref") or "").strip(),
                           "license": str(lic).strip()}
    if out["kind"] not in KINDS:
        raise CardRejected(f"source kind {out['kind']!r} is not one of {', '.join(KINDS)}")
    if source.get("url"):
        out["url"] = str(source["url"])
    return out


def build_card(raw: Mapping[str, Any], *, kind: str, license_value: Any = None) -> dict[str, Any]:
    """The content fields of a card from loosely typed input; raises :class:`CardRejected`."""
    title = str(raw.get("title", "") or "").strip()
    if not title:
        raise CardRejected("no title")
    card: dict[str, Any] = {
        "title": title,
        "summary": str(raw.get("summary", "") or "").strip(),
        "tags": _str_list(raw.get("tags"), "tags"),
        "source": normalize_source(raw.get("source"), kind=kind,
                                   license_value=license_value if license_value is not None
                                   else raw.get("license")),
    }
    if raw.get("citation"):
        if not isinstance(raw["citation"], Mapping):
            raise CardRejected("citation must be an object")
        card["citation"] = {str(k): str(v) for k, v in raw["citation"].items()}
    card["tokens"] = normalize_tokens(raw.get("tokens"))
    card["rationale"] = str(raw.get("rationale", "") or "").strip()
    card["dos"] = _str_list(raw.get("dos"), "dos")
    card["donts"] = _str_list(raw.get("donts"), "donts")
    card["images"] = list(raw.get("images") or [])
    return card


def content_of(card: Mapping[str, Any]) -> dict[str, Any]:
    return {k: card[k] for k in CONTENT_FIELDS if k in card}


def license_known(card: Mapping[str, Any]) -> bool:
    lic = str((card.get("source") or {}).get("license", "")).strip().lower()
    return bool(lic) and lic != UNKNOWN_LICENSE


def brief_eligible(card: Mapping[str, Any]) -> bool:
    """Active, with a known license and a source reference."""
    source = card.get("source") or {}
    return (card.get("status", "active") == "active" and license_known(card)
            and bool(str(source.get("ref", "")).strip()))
