"""Ingest cards: ``rules`` (shipped with genesis), ``docs DIR``, ``inbox`` and ``manifest FILE``.

Every card has an *origin* (``rule:<id>``, ``doc:<path>``, ``inbox:<name>``,
``manifest:<path>#<id>``, ``project:<path>``) and the sha256 of the source
bytes it came from.  Offering the same origin with the same bytes changes
nothing; with other bytes it updates the card in place (same id); bytes or
content already in the library under another origin are skipped.  Ids run
``DSG-0001``, ``DSG-0002``, … and are never reused.  A run that changes
nothing writes nothing, so ``manifest.json`` stays byte-identical.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from genesis_git.design.cards import (
    CardRejected,
    build_card,
    content_of,
    license_known,
)
from genesis_git.design.docparse import parse_doc
from genesis_git.design.images import image_info
from genesis_git.design.library import (
    INBOX,
    REFS,
    Library,
    PathEscape,
    inside,
    inside_repo,
    now_iso,
    read_json_input,
    sha256_bytes,
)
from genesis_git.design.manage import ensure_library

_CARD_ORDER = ("id", "title", "summary", "tags", "source", "citation", "tokens", "rationale",
               "dos", "donts", "images", "status", "weight", "origin", "sourceSha256",
               "createdAt", "updatedAt")


@dataclass
class IngestReport:
    source: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "added": self.added, "updated": self.updated,
                "unchanged": self.unchanged, "skipped": self.skipped, "rejected": self.rejected,
                "warnings": self.warnings, "written": self.written}


def _content_hash(content: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def _ordered(card: Mapping[str, Any]) -> dict[str, Any]:
    return {k: card[k] for k in _CARD_ORDER if k in card}


class Ingest:
    """One writing session over the manifest: offer cards, then :meth:`finish`."""

    def __init__(self, lib: Library, source: str):
        self.lib = lib
        self.manifest = lib.load_manifest()
        self.report = IngestReport(source)
        self.changed = False
        cards = self.manifest["cards"]
        self.by_origin = {c.get("origin"): c for c in cards}
        self.by_sha = {c.get("sourceSha256"): c for c in cards}
        self.by_content = {_content_hash(content_of(c)): c for c in cards}

    def offer(self, origin: str, source_sha: str, content: dict[str, Any], name: str) -> str:
        """Add, update or skip one card; returns its id (or an empty string when skipped)."""
        existing = self.by_origin.get(origin)
        if existing is not None and existing.get("sourceSha256") == source_sha:
            self.report.unchanged.append(existing["id"])
            return str(existing["id"])
        twin = self.by_content.get(_content_hash(content))
        if existing is None and (source_sha in self.by_sha or twin is not None):
            other = self.by_sha.get(source_sha) or twin or {}
            self.report.skipped.append({"name": name,
                                        "reason": f"already in the library as {other.get('id')}"})
            return ""
        now = now_iso()
        if existing is not None:
            merged = {**existing, **content, "sourceSha256": source_sha, "updatedAt": now}
            for key in ("citation",):
                if key not in content:
                    merged.pop(key, None)
            existing.clear()
            existing.update(_ordered(merged))
            self.report.updated.append(existing["id"])
            card = existing
        else:
            next_id = int(self.manifest.get("nextId", 1))
            card = _ordered({**content, "id": f"DSG-{next_id:04d}", "status": "active",
                             "weight": 1.0, "origin": origin, "sourceSha256": source_sha,
                             "createdAt": now, "updatedAt": now})
            self.manifest["nextId"] = next_id + 1
            self.manifest["cards"].append(card)
            self.by_origin[origin] = card
            self.report.added.append(card["id"])
        self.by_sha[source_sha] = card
        self.by_content[_content_hash(content_of(card))] = card
        if not license_known(card):
            self.report.warnings.append(f"{card['id']} ({name}): license unknown; stored, kept "
                                        "out of briefs and ranked lower")
        self.changed = True
        return str(card["id"])

    def reject(self, name: str, reason: str) -> None:
        self.report.rejected.append({"name": name, "reason": reason})

    def finish(self) -> IngestReport:
        from genesis_git.design.index import save_library

        if self.changed:
            self.manifest["builtAt"] = now_iso()
        self.report.written = save_library(self.lib, self.manifest)
        return self.report


def store_image(lib: Library, data: bytes, alt: str, name: str) -> dict[str, Any]:
    """Copy an image to ``refs/<sha256>.<ext>`` (once) and describe it; raises CardRejected."""
    info = image_info(data)
    if info is None:
        raise CardRejected(f"{name} is not a PNG or JPEG image")
    ext, width, height = info
    sha = sha256_bytes(data)
    rel = f"{REFS}/{sha}.{ext}"
    target = lib.path(rel)
    if not target.is_file():
        lib.write_bytes(rel, data)
    return {"path": rel, "sha256": sha, "alt": alt, "width": width, "height": height}


# -- rules ------------------------------------------------------------------------

def rule_files() -> list[tuple[str, bytes]]:
    folder = resources.files("genesis_git.design").joinpath("rules")
    return sorted((p.name, p.read_bytes()) for p in folder.iterdir() if p.name.endswith(".json"))


def ingest_rules(lib: Library) -> IngestReport:
    ensure_library(lib)
    with lib.locked():
        job = Ingest(lib, "rules")
        for name, data in rule_files():
            raw = json.loads(data.decode("utf-8"))
            cite = raw.get("citation") or {}
            raw["source"] = {"kind": "rule", "url": cite.get("url", ""),
                             "ref": f"{cite.get('guideline', '')} · {cite.get('section', '')}"}
            content = build_card(raw, kind="rule", license_value=raw.get("license"))
            job.offer(f"rule:{raw.get('rule', name[:-5])}", sha256_bytes(data), content, name)
        return job.finish()


# -- docs -------------------------------------------------------------------------

def ingest_docs(lib: Library, folder: str | Path) -> IngestReport:
    base = inside_repo(lib.repo_root, folder, what="docs folder")
    if not base.is_dir():
        raise CardRejected(f"docs folder {folder}: no such directory")
    ensure_library(lib)
    with lib.locked():
        job = Ingest(lib, f"docs {lib.display(base)}")
        for path in sorted(base.rglob("*.md")):
            rel = path.relative_to(base).as_posix()
            try:
                real = inside(base, rel, what="document")
                data = real.read_bytes()
                raw = parse_doc(data.decode("utf-8", "replace"), lib.display(path))
                content = build_card(raw, kind="official", license_value=raw["license"])
            except (CardRejected, PathEscape) as exc:
                job.reject(lib.display(path), exc.message)
                continue
            job.offer(f"doc:{lib.display(path)}", sha256_bytes(data), content, lib.display(path))
        return job.finish()


# -- inbox ------------------------------------------------------------------------

_IMAGE_EXT = (".png", ".jpg", ".jpeg")
_META = ".meta.json"


def _inbox_item(lib: Library, job: Ingest, name: str, image: str, meta: str) -> None:
    img_path = inside(lib.root, f"{INBOX}/{image}", what="inbox image")
    meta_path = inside(lib.root, f"{INBOX}/{meta}", what="inbox meta")
    meta_bytes = meta_path.read_bytes()
    try:
        raw = json.loads(meta_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CardRejected(f"{meta} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise CardRejected(f"{meta} must hold a JSON object")
    missing = [k for k in ("title", "tags", "source") if not raw.get(k)]
    if missing:
        raise CardRejected(f"{meta} lacks {', '.join(missing)} (required: title, tags, "
                           "source, license)")
    if raw.get("license") is None and not (isinstance(raw["source"], dict)
                                           and raw["source"].get("license")):
        raise CardRejected(f'{meta} has no license (add "license": "CC-BY-4.0", or "unknown" '
                           "to store it with a warning)")
    data = img_path.read_bytes()
    content = build_card({**raw, "images": []}, kind="user", license_value=raw.get("license"))
    content["images"] = [store_image(lib, data, str(raw.get("alt") or raw["title"]), image)]
    job.offer(f"inbox:{name}", sha256_bytes(data + b"\0" + meta_bytes), content, f"inbox/{name}")


def ingest_inbox(lib: Library) -> IngestReport:
    ensure_library(lib)
    folder = lib.path(INBOX)
    with lib.locked():
        job = Ingest(lib, "inbox")
        names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        images = {n.rsplit(".", 1)[0]: n for n in names if n.lower().endswith(_IMAGE_EXT)}
        metas = {n[:-len(_META)]: n for n in names if n.endswith(_META)}
        for name in sorted(set(images) | set(metas)):
            if name not in metas:
                job.reject(f"inbox/{images[name]}",
                           f"missing {name}{_META} (required: title, tags, source, license)")
                continue
            if name not in images:
                job.reject(f"inbox/{metas[name]}", f"no image {name}.png or {name}.jpg next to it")
                continue
            try:
                _inbox_item(lib, job, name, images[name], metas[name])
            except (CardRejected, PathEscape) as exc:
                job.reject(f"inbox/{name}", exc.message)
        return job.finish()


# -- manifest ---------------------------------------------------------------------

def _import_card(lib: Library, job: Ingest, raw: dict[str, Any], base: Path,
                 display: str) -> None:
    name = str(raw.get("id") or raw.get("title") or "?")
    if raw.get("status") == "blocked":
        job.report.skipped.append({"name": name, "reason": "blocked in the source library"})
        return
    kind = str((raw.get("source") or {}).get("kind") or "user")
    images: list[dict[str, Any]] = []
    for img in raw.get("images") or []:
        rel = str(img.get("path", "")) if isinstance(img, dict) else ""
        src = inside(base, rel, what=f"image of {name}")
        if not src.is_file():
            job.report.warnings.append(f"{name}: image {rel} is missing; imported without it")
            continue
        images.append(store_image(lib, src.read_bytes(), str(img.get("alt", "")), rel))
    content = build_card({**raw, "images": images}, kind=kind)
    sha = _content_hash(content)
    job.offer(f"manifest:{display}#{name}", sha, content, f"{display}#{name}")


def ingest_manifest(lib: Library, file: str | Path) -> IngestReport:
    path, data, _ = read_json_input(lib.repo_root, file, what="manifest", label=f"manifest {file}",
                                 error=CardRejected)
    display = lib.display(path)
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        raise CardRejected(f"manifest {file} has no cards list")
    ensure_library(lib)
    with lib.locked():
        job = Ingest(lib, f"manifest {display}")
        for raw in cards:
            if not isinstance(raw, dict):
                job.reject(display, "a card is not a JSON object")
                continue
            try:
                _import_card(lib, job, raw, path.parent, display)
            except (CardRejected, PathEscape) as exc:
                job.reject(f"{display}#{raw.get('id', '?')}", exc.message)
        return job.finish()
