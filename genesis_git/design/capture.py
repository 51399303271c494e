"""``design capture``: a confirmed visual baseline becomes a ``project`` card.

The baseline is a JSON file with ``tokens`` (as on a card) and optionally
``title``, ``summary``, ``tags``, ``rationale``, ``dos``, ``donts``,
``license`` and ``images`` (paths relative to the baseline file).  Capture
is refused unless the user confirmed the baseline (``--confirmed``), and a
baseline that says ``"confirmed": false`` is refused as well.  Capturing the
same bytes again changes nothing; a changed baseline updates its card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genesis_git.design.cards import CardRejected, build_card
from genesis_git.design.feedback import record
from genesis_git.design.ingest import Ingest, store_image
from genesis_git.design.library import (
    Library,
    inside_repo,
    now_iso,
    read_json_input,
    sha256_bytes,
)
from genesis_git.design.manage import ensure_library
from genesis_git.kernel.errors import GenesisError

DEFAULT_LICENSE = "project-internal"


def capture(lib: Library, baseline: str | Path, *, confirmed: bool) -> dict[str, Any]:
    if not confirmed:
        raise GenesisError("capture refused: the baseline is not confirmed",
                           hint="capture only what the user accepted; rerun with --confirmed")
    path, raw, data = read_json_input(lib.repo_root, baseline, what="baseline",
                                label=f"baseline {baseline}")
    shown = lib.display(path)
    if not isinstance(raw, dict):
        raise GenesisError(f"baseline {baseline} must hold a JSON object")
    if raw.get("confirmed") is False:
        raise GenesisError(f"capture refused: {shown} says \"confirmed\": false",
                           hint="confirm the baseline with the user first")
    if not raw.get("tokens"):
        raise GenesisError(f"baseline {shown} has no tokens to capture")
    ensure_library(lib)
    fields = {
        "title": raw.get("title") or f"Project pattern · {path.stem}",
        "summary": raw.get("summary") or f"Confirmed visual baseline {shown}",
        "tags": raw.get("tags") or ["project", *sorted(raw["tokens"])],
        "source": {"kind": "project", "ref": shown,
                   "license": raw.get("license") or DEFAULT_LICENSE},
        "tokens": raw["tokens"],
        "rationale": raw.get("rationale", ""),
        "dos": raw.get("dos", []),
        "donts": raw.get("donts", []),
    }
    try:
        content = build_card(fields, kind="project")
    except CardRejected as exc:
        raise GenesisError(f"baseline {shown}: {exc.message}") from None
    with lib.locked():
        for rel in raw.get("images") or []:
            img = inside_repo(lib.repo_root, path.parent / str(rel), what="baseline image")
            if not img.is_file():
                raise GenesisError(f"baseline image {rel}: no such file")
            content["images"].append(store_image(lib, img.read_bytes(), content["title"], str(rel)))
        job = Ingest(lib, f"capture {shown}")
        card_id = job.offer(f"project:{shown}", sha256_bytes(data), content, shown)
        report = job.finish()
        if report.added or report.updated:
            record(lib, {"at": now_iso(), "card": card_id, "action": "capture",
                         "baseline": shown, "note": ""})
    return {"card": card_id, "baseline": shown, **report.as_dict()}
