"""``design feedback``: useful / off / block / unblock, kept in the append-only ``feedback.jsonl``.

``useful`` multiplies a card's weight by 1.1 and ``off`` by 0.8, clamped to
0.5–1.5; ``block`` keeps the card but search never returns it again;
``unblock`` brings it back.  Nothing is ever deleted: the history is the
file, the current weight and status live on the card in ``manifest.json``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from genesis_git.design.library import FEEDBACK, Library, now_iso
from genesis_git.kernel.errors import GenesisError, UsageError

ACTIONS = ("useful", "off", "block", "unblock")
FACTORS = {"useful": 1.1, "off": 0.8}
MIN_WEIGHT = 0.5
MAX_WEIGHT = 1.5


def card_id(text: str) -> str:
    """``DSG-0007``, ``dsg-7`` and ``7`` all name ``DSG-0007``."""
    raw = text.strip().upper()
    m = re.fullmatch(r"(?:DSG-)?(\d+)", raw)
    if not m:
        raise UsageError(f"{text}: not a card id", hint="card ids look like DSG-0007")
    return f"DSG-{int(m.group(1)):04d}"


def new_weight(weight: float, action: str) -> float:
    factor = FACTORS.get(action)
    if factor is None:
        return weight
    return round(min(MAX_WEIGHT, max(MIN_WEIGHT, weight * factor)), 6)


def record(lib: Library, entry: dict[str, Any]) -> None:
    lib.append_text(FEEDBACK, json.dumps(entry, ensure_ascii=False) + "\n")


def feedback(lib: Library, card: str, action: str, note: str = "") -> dict[str, Any]:
    """Apply one feedback action and append it to the history; returns the history entry."""
    from genesis_git.design.index import save_library

    if action not in ACTIONS:
        raise UsageError(f"unknown feedback {action!r}", hint="use " + ", ".join(ACTIONS))
    wanted = card_id(card)
    with lib.locked():
        manifest = lib.load_manifest()
        target = next((c for c in manifest["cards"] if c["id"] == wanted), None)
        if target is None:
            raise GenesisError(f"unknown card {wanted}", hint="see `genesis design list`")
        old_weight = float(target.get("weight", 1.0))
        old_status = str(target.get("status", "active"))
        before: dict[str, Any] = {"weight": old_weight, "status": old_status}
        weight = new_weight(old_weight, action)
        status = {"block": "blocked", "unblock": "active"}.get(action, old_status)
        now = now_iso()
        entry = {"at": now, "card": wanted, "action": action, "note": note,
                 "before": before, "weight": weight, "status": status}
        record(lib, entry)
        if (weight, status) != (old_weight, old_status):
            target["weight"] = weight
            target["status"] = status
            target["updatedAt"] = now
            manifest["builtAt"] = now
            save_library(lib, manifest)
    return entry


def history(lib: Library, card: str | None = None) -> list[dict[str, Any]]:
    """The feedback history, oldest first (optionally of one card)."""
    path = lib.path(FEEDBACK)
    if not path.is_file():
        return []
    wanted = card_id(card) if card else None
    out: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and (wanted is None or entry.get("card") == wanted):
            out.append(entry)
    return out
