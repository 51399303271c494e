"""A design document read as a card: front matter, title, summary, do and don't rules, and the
design-token values its lines name (``8dp``, ``4.5:1``), each under its category."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from genesis_git.design.cards import VALUE_PATTERN, fmt_num

_VALUE = re.compile(VALUE_PATTERN)
_UNITS = {"vp", "fp", "px", "dp", "pt", "sp", "ms", "s", "%", ":1", "em", "rem"}
_CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("contrast", ("contrast", "对比")),
    ("motion", ("duration", "animation", "motion", "transition", "动效", "动画", "时长")),
    ("radius", ("radius", "corner", "圆角")),
    ("type", ("font", "line height", "line-height", "text size", "type", "字号", "字体", "行高")),
    ("target", ("target", "touch", "hit", "热区", "触控")),
    ("spacing", ("spacing", "margin", "padding", "gap", "间距", "边距", "留白")),
    ("border", ("border", "outline", "stroke", "描边", "边框")),
)
_DO = re.compile(r"^(?:do\b|✅|推荐|建议|应当|应该)[:：\s]*", re.I)
_DONT = re.compile(r"^(?:don'?t\b|do not\b|avoid\b|never\b|❌|避免|不要|禁止)[:：\s]*", re.I)


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 4)
    if end < 0:
        return {}, text
    meta: dict[str, Any] = {}
    for line in text[4:end].splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        value = value.strip().strip('"').strip("'")
        if value.startswith("[") and value.endswith("]"):
            meta[key.strip()] = [v.strip().strip('"').strip("'")
                                 for v in value[1:-1].split(",") if v.strip()]
        else:
            meta[key.strip()] = value
    return meta, text[end + 4:].lstrip("\n")


def _nearest_keyword(low: str, at: int) -> tuple[str, str] | None:
    """The category keyword closest before ``at`` in the line (else the first one after it)."""
    before: tuple[int, str, str] | None = None
    after: tuple[int, str, str] | None = None
    for category, words in _CATEGORIES:
        for word in words:
            pos = low.rfind(word, 0, at)
            if pos >= 0 and (before is None or pos > before[0]):
                before = (pos, category, word)
            nxt = low.find(word, at)
            if nxt >= 0 and (after is None or nxt < after[0]):
                after = (nxt, category, word)
    best = before or after
    return (best[1], best[2].replace(" ", "-")) if best else None


def _doc_tokens(lines: list[str]) -> dict[str, list[dict[str, Any]]]:
    tokens: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    count = 0
    for line in lines:
        low = line.lower()
        for m in _VALUE.finditer(line):
            if m.group(1) is None:
                cat, name, value, unit = "palette", "color", m.group(0).lower(), ""
            else:
                unit = (m.group(2) or "").lower()
                if unit not in _UNITS:
                    continue
                cat, name = "values", "value"
                if unit == ":1":
                    cat, name = "contrast", "ratio"
                else:
                    found = _nearest_keyword(low, m.start())
                    if found:
                        cat, name = found
                    if cat == "values" and unit in ("ms", "s"):
                        cat, name = "motion", "duration"
                value = m.group(1)
            key = (cat, f"{value}{unit}")
            if key in seen or count >= 16:
                continue
            seen.add(key)
            count += 1
            tok: dict[str, Any] = {"name": name, "value": value}
            if m.group(1) is not None:
                num = float(value)
                tok["value"] = int(num) if num.is_integer() else float(fmt_num(num))
                if unit:
                    tok["unit"] = unit
            tokens.setdefault(cat, []).append(tok)
    return tokens


def parse_doc(text: str, rel: str) -> dict[str, Any]:
    """A card's raw fields from one Markdown document: a summary plus its key values."""
    meta, body = _front_matter(text)
    title = str(meta.get("title", ""))
    paragraphs: list[str] = []
    dos: list[str] = []
    donts: list[str] = []
    prose: list[str] = []
    current: list[str] = []
    in_code = False
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        prose.append(stripped)
        if stripped.startswith("#"):
            if not title:
                title = stripped.lstrip("#").strip()
            stripped = ""
        if stripped[:2] in ("- ", "* ") or re.match(r"^\d+\.\s", stripped):
            item = re.sub(r"^(?:[-*]|\d+\.)\s+", "", stripped)
            if _DONT.match(item):
                donts.append(_DONT.sub("", item, count=1).strip())
            elif _DO.match(item):
                dos.append(_DO.sub("", item, count=1).strip())
            stripped = ""
        if stripped and not stripped.startswith("|"):
            current.append(stripped)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    tokens = _doc_tokens(prose)
    tags = meta.get("tags") or sorted(tokens)
    return {
        "title": title or Path(rel).stem,
        "summary": paragraphs[0][:400] if paragraphs else "",
        "tags": tags,
        "source": {"kind": meta.get("kind") or "official", "ref": meta.get("source") or rel,
                   "url": meta.get("url", "")},
        "tokens": tokens,
        "rationale": paragraphs[1][:400] if len(paragraphs) > 1 else "",
        "dos": dos[:8],
        "donts": donts[:8],
        "license": meta.get("license") or "unknown",
    }
