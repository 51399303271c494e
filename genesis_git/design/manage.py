"""What is done with a design library as a whole: ``init``, ``stats``, its health for
``genesis doctor``, and the list of its cards."""

from __future__ import annotations

import json
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.design.index import load_index, save_library
from genesis_git.design.library import (
    FEEDBACK,
    GITIGNORE,
    GITIGNORE_TEXT,
    INBOX,
    INDEX,
    READER,
    REFS,
    SCHEMA_VERSION,
    Library,
    LibraryUnavailable,
    engine_sha256,
    library_root,
    now_iso,
    reader_bytes,
    sha256_bytes,
)
from genesis_git.git.repo import Repo
from genesis_git.kernel.errors import GenesisError
from genesis_git.kernel.findings import Finding


def empty_manifest() -> dict[str, Any]:
    return {
        "schemaVersion": SCHEMA_VERSION,
        "engineSha256": engine_sha256(),
        "builtAt": now_iso(),
        "nextId": 1,
        "counts": {"cards": 0, "chunks": 0, "byKind": {}, "byStatus": {}},
        "cards": [],
    }


def init_library(lib: Library) -> dict[str, Any]:
    """Create the folder, the reader and an empty manifest; rebuild derived files. Idempotent."""
    created = not lib.exists()
    with lib.locked():
        for sub in (REFS, INBOX):
            lib.path(sub).mkdir(parents=True, exist_ok=True)
        lib.write_text(GITIGNORE, GITIGNORE_TEXT)
        reader_written = lib.write_bytes(READER, reader_bytes())
        manifest = empty_manifest() if created else lib.load_manifest()
        if manifest.get("engineSha256") != engine_sha256():
            manifest["engineSha256"] = engine_sha256()
            manifest["builtAt"] = now_iso()
        written = save_library(lib, manifest)
    return {
        "library": lib.display(lib.root),
        "created": created,
        "reader": lib.display(lib.path(READER)),
        "readerWritten": reader_written,
        "engineSha256": engine_sha256(),
        "filesWritten": written,
        "cards": len(manifest["cards"]),
    }


def ensure_library(lib: Library) -> None:
    """Initialise the library when it does not exist yet (the first ingest creates it)."""
    if not lib.exists():
        init_library(lib)


def _feedback_counts(lib: Library) -> dict[str, int]:
    counts: dict[str, int] = {}
    target = lib.path(FEEDBACK)
    if not target.is_file():
        return counts
    for line in target.read_text(encoding="utf-8").splitlines():
        try:
            action = str(json.loads(line).get("action", "?"))
        except (json.JSONDecodeError, AttributeError):
            action = "unreadable"
        counts[action] = counts.get(action, 0) + 1
    return dict(sorted(counts.items()))


def stats(lib: Library) -> dict[str, Any]:
    """Cards by kind and status, chunks, index size, feedback counts, reference images."""
    manifest = lib.load_manifest()
    by_kind: dict[str, int] = {}
    by_status: dict[str, int] = {}
    unknown_license = 0
    for card in manifest["cards"]:
        kind = str(card.get("source", {}).get("kind", "?"))
        by_kind[kind] = by_kind.get(kind, 0) + 1
        status = str(card.get("status", "active"))
        by_status[status] = by_status.get(status, 0) + 1
        if str(card.get("source", {}).get("license", "")).lower() == "unknown":
            unknown_license += 1
    index_info: dict[str, Any] = {"available": False, "bytes": 0, "terms": 0, "chunks": 0}
    index_path = lib.path(INDEX)
    if index_path.is_file():
        index_info["bytes"] = index_path.stat().st_size
    try:
        index = load_index(lib)
        index_info.update(available=True, terms=len(index["postings"]),
                          chunks=len(index["chunks"]["id"]))
    except LibraryUnavailable as exc:
        index_info["problem"] = exc.message
    refs_dir = lib.path(REFS)
    ref_files = sorted(p for p in refs_dir.iterdir() if p.is_file()) if refs_dir.is_dir() else []
    reader = lib.path(READER)
    reader_sha = sha256_bytes(reader.read_bytes()) if reader.is_file() else None
    return {
        "library": lib.display(lib.root),
        "cards": {"total": len(manifest["cards"]), "byKind": dict(sorted(by_kind.items())),
                  "byStatus": dict(sorted(by_status.items())),
                  "unknownLicense": unknown_license},
        "chunks": int(manifest.get("counts", {}).get("chunks", 0)),
        "index": index_info,
        "feedback": _feedback_counts(lib),
        "refs": {"files": len(ref_files), "bytes": sum(p.stat().st_size for p in ref_files)},
        "reader": {"engineSha256": manifest.get("engineSha256"), "fileSha256": reader_sha,
                   "matches": reader_sha is not None
                   and reader_sha == manifest.get("engineSha256")},
        "nextId": manifest.get("nextId", 1),
    }


def health(lib: Library) -> tuple[str, str]:
    """``ok``, ``absent``, ``unavailable`` or ``reader`` (the reader was changed), with a reason."""
    if not lib.root.exists():
        return "absent", f"no design library at {lib.display(lib.root)}"
    try:
        manifest = lib.load_manifest()
        load_index(lib)
    except LibraryUnavailable as exc:
        return "unavailable", str(exc)
    reader = lib.path(READER)
    if not reader.is_file():
        return "unavailable", f"{lib.display(reader)} is missing (run `genesis design init`)"
    if sha256_bytes(reader.read_bytes()) != manifest.get("engineSha256"):
        return "reader", (f"{lib.display(reader)} differs from the recorded engineSha256 "
                          "(run `genesis design init` to restore it)")
    return "ok", f"{lib.display(lib.root)}: {len(manifest['cards'])} card(s)"


def doctor_findings(repo: Repo, config: Config) -> list[Finding]:
    """Findings for ``genesis doctor``: the library is ok, unavailable, or absent (optional)."""
    try:
        lib = Library(library_root(repo.root, config), repo.root, config)
        state, message = health(lib)
    except GenesisError as exc:
        return [Finding("design library", "warn", f"unavailable: {exc}",
                        "check design.library_dir in the config")]
    if state == "ok":
        return [Finding("design library", "ok", message)]
    if state == "absent":
        return [Finding("design library", "ok",
                        f"{message} (optional; `genesis design init` creates it)")]
    if state == "reader":
        return [Finding("design library", "warn", message,
                        "run `genesis design init` to write the reader again")]
    return [Finding("design library", "warn", f"unavailable: {message}",
                    "run `genesis design init` to rebuild the index and reader; "
                    "restore manifest.json from git if it is damaged")]


def list_cards(lib: Library, *, kind: str | None = None,
               status: str | None = None) -> list[dict[str, Any]]:
    """Cards of the manifest, optionally of one source kind and one status."""
    out: list[dict[str, Any]] = []
    for card in lib.load_manifest()["cards"]:
        src = card.get("source") or {}
        if kind and src.get("kind") != kind:
            continue
        if status and card.get("status", "active") != status:
            continue
        out.append({"id": card["id"], "title": card.get("title", ""), "kind": src.get("kind"),
                    "license": src.get("license"), "status": card.get("status", "active"),
                    "weight": card.get("weight", 1.0), "tags": card.get("tags", []),
                    "images": [img.get("path") for img in card.get("images", [])]})
    return out
