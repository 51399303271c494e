"""``design brief``: 3–5 reference cards for a task, written to ``tasks/design-brief.md``.

Only active cards with a known license and a source reference enter a brief;
the others are named in warnings.  When fewer than three cards match the
task, the brief is filled up with the best-weighted remaining cards, marked
as general references.  Each brief appends an ``inspiration`` record to
``outbox-dsh.md`` (``re=`` the request it answers, with ``--request``).

A brief without a card is not written: with no library, an unreadable one, or
no card that may enter a brief, :func:`brief` raises :class:`NoBrief` and
leaves every file as it was (no empty ``tasks/design-brief.md``, no record).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from genesis_git.design.cards import brief_eligible, license_known, token_value_text
from genesis_git.design.index import load_index
from genesis_git.design.library import Library, LibraryUnavailable, inside_repo
from genesis_git.design.protocol import answer, find_request
from genesis_git.design.search import fmt6, search_index
from genesis_git.kernel.errors import GenesisError, UsageError

DEFAULT_OUT = "tasks/design-brief.md"
FILL_HINT = "run `genesis design init`, then `genesis design ingest rules`"


class NoBrief(GenesisError):
    """No card can enter the brief, so nothing was written."""


def _one_line(text: str, limit: int = 160) -> str:
    first = re.split(r"(?<=[.!?。！？])\s*", " ".join(text.split()), maxsplit=1)[0]
    return first if len(first) <= limit else first[:limit - 1] + "…"


def _tokens_line(tokens: Mapping[str, list[dict[str, Any]]]) -> str:
    parts = [f"{cat}.{tok.get('name', cat)} {token_value_text(tok)}"
             for cat, items in tokens.items() for tok in items]
    return "; ".join(parts) if parts else "none"


def render_card(lib: Library, card: Mapping[str, Any], hit: Mapping[str, Any] | None) -> str:
    images = card.get("images") or []
    shown = [f"{lib.display(lib.path(img['path']))}" + (f" ({img['alt']})" if img.get("alt") else "")
             for img in images]
    src = card.get("source") or {}
    source = f"{src.get('kind', '')} · {src.get('ref', '')} ({src.get('license', '')})"
    if src.get("url"):
        source += f" {src['url']}"
    lines = [
        f"## {card['id']} · {card['title']}",
        "",
        f"- refId: {card['id']}",
        f"- image: {'; '.join(shown) if shown else 'none'}",
        f"- tokens: {_tokens_line(card.get('tokens') or {})}",
        f"- why: {_one_line(str(card.get('rationale') or card.get('summary') or ''))}",
        f"- do: {'; '.join(card.get('dos') or []) or 'none'}",
        f"- don't: {'; '.join(card.get('donts') or []) or 'none'}",
        f"- source: {source}",
    ]
    if hit is not None:
        b = hit["breakdown"]
        lines.append(f"- score: {fmt6(hit['score'])} (bm25 {fmt6(b['bm25'])} + token "
                     f"{fmt6(b['tokenBoost'])} + profile {fmt6(b['profileBoost'])}, weight "
                     f"{fmt6(b['weight'])})")
    else:
        lines.append("- score: general reference (no match for this task)")
    return "\n".join(lines) + "\n"


def _pick(lib: Library, query: str, warnings: list[str]) -> list[tuple[dict[str, Any],
                                                                       dict[str, Any] | None]]:
    manifest = lib.load_manifest()
    index = load_index(lib)
    by_id = {c["id"]: c for c in manifest["cards"]}
    wanted = max(3, min(5, lib.config.settings.design.brief_cards))
    ranked = search_index(index, query, max(1, len(index["cards"])))["results"]
    picks: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    for hit in ranked:
        card = by_id.get(hit["cardId"])
        if card is None:
            continue
        if not brief_eligible(card):
            why = "license unknown" if not license_known(card) else "no source reference"
            warnings.append(f"{card['id']} matched but is kept out of the brief ({why})")
            continue
        if len(picks) < wanted:
            picks.append((card, hit))
    if len(picks) < 3:
        chosen = {c["id"] for c, _ in picks}
        rest = sorted((c for c in manifest["cards"] if brief_eligible(c) and c["id"] not in chosen),
                      key=lambda c: (-float(c.get("weight", 1.0)), c["id"]))
        for card in rest[:3 - len(picks)]:
            picks.append((card, None))
    return picks


def brief(lib: Library, task: str | None = None, *, out: str | Path | None = None,
          request: str | None = None, now: datetime | None = None) -> dict[str, Any]:
    """Write the brief, append the ``inspiration`` record, and describe what was done."""
    req = find_request(lib, request) if request else None
    query = (task or "").strip() or (req.fields.get("scene", req.title) if req else "")
    if not query.strip():
        raise UsageError("give a task or query, or --request q-N",
                         hint='e.g. genesis design brief "dark mode home cards"')
    target = inside_repo(lib.repo_root, out if out is not None else lib.repo_root / DEFAULT_OUT,
                         what="--out")
    warnings: list[str] = []
    try:
        picks = _pick(lib, query, warnings)
    except LibraryUnavailable as exc:
        if not lib.exists():
            raise NoBrief(f"no brief written: {exc.message}", hint=FILL_HINT) from None
        raise NoBrief(f"no brief written: design library unavailable: {exc.message}",
                      hint=exc.hint) from None
    if not picks and warnings:
        many = len(warnings) != 1
        raise NoBrief(f"no brief written: {len(warnings)} matching card{'s' if many else ''} "
                      f"lack{'' if many else 's'} a known license or a source reference",
                      hint="see `genesis design list`")
    if not picks:
        raise NoBrief("no brief written: the design library holds no card",
                      hint="add the rule cards with `genesis design ingest rules`")
    quoted = query.replace("\\", "\\\\").replace('"', '\\"')
    head = [
        "# Design brief", "",
        f"- task: {query}",
    ]
    if req:
        head.append(f"- request: #{req.id}")
    head += [
        f"- cards: {', '.join(c['id'] for c, _ in picks)}",
        f"- more: node {lib.display(lib.root)}/query.mjs \"{quoted}\" --top 5",
        "",
        "References are evidence for discussion, not acceptance criteria: verify on the "
        "device (screenshot, layout tree, measured values).",
        "",
    ]
    text = "\n".join(head) + "\n" + "\n".join(render_card(lib, c, h) for c, h in picks)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    shown = lib.display(target)
    title = f"design brief: {query}" if not req else f"answer to #{req.id}: {query}"
    record = answer(lib, req.id if req else None, title=title, brief_path=shown,
                    cards=[c["id"] for c, _ in picks], query=query, now=now).id
    return {"out": shown, "query": query, "request": req.id if req else None,
            "cards": [c["id"] for c, _ in picks], "record": record, "available": True,
            "warnings": warnings, "text": text}
