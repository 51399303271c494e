"""The per-path metadata of one scan: type, owner, component, times, staleness.

What each field means: docs/explanation/sessions-and-cache.md, "Metadata".
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from datetime import datetime, timezone
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.git.repo import Repo
from genesis_git.index.cache import CachedBlob, chunker_id
from genesis_git.index.classify import (
    CODEOWNERS_PATHS,
    CodeOwners,
    artifact_type,
    component,
    staleness,
)
from genesis_git.index.lastmod import last_modified_times
from genesis_git.index.scan import FileEntry, Snapshot


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def doc_id_for(path: str) -> str:
    import hashlib

    return "doc-" + hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:12]


class Metadata:
    """Computes the per-path metadata of one scan (docs/explanation/sessions-and-cache.md)."""

    def __init__(self, conn: sqlite3.Connection, repo: Repo, config: Config, snap: Snapshot,
                 head: str | None):
        self.config = config
        classify = config.settings.classify
        self.rules = {str(k): str(v) for k, v in classify.rules.items()}
        self.components = {str(k): str(v) for k, v in classify.components.items()}
        self.half_life = config.settings.staleness.half_life_days
        owners_text = ""
        for rel in CODEOWNERS_PATHS:
            p = repo.root / rel
            if p.is_file():
                owners_text = p.read_text(encoding="utf-8", errors="replace")
                break
        self.owners = CodeOwners(owners_text)
        import hashlib

        # what the path-only columns depend on, to reuse them for unchanged files
        self.fingerprint = hashlib.sha1(json.dumps(
            [chunker_id(config), sorted(self.rules.items()), sorted(self.components.items()),
             owners_text]).encode()).hexdigest()
        self.now = time.time()
        clean = {p for p, e in snap.entries.items() if not e.dirty}
        self.times = last_modified_times(conn, repo, head, clean)
        self.root = repo.root

    def row(self, entry: FileEntry, blob: CachedBlob | None,
            same: sqlite3.Row | None = None) -> dict[str, Any]:
        """The map row of ``entry``; ``same`` is its previous row when only the times may differ."""
        hint = blob.content_type if blob is not None else None
        ts: float | None
        if entry.dirty:
            if entry.mtime_ns is None:
                try:
                    st = os.stat(self.root / entry.path)
                    entry.mtime_ns, entry.size = st.st_mtime_ns, st.st_size
                except OSError:
                    pass
            ts = entry.mtime_ns / 1e9 if entry.mtime_ns else self.now
        else:
            t = self.times.get(entry.path)
            ts = float(t) if t else None
        age = (self.now - ts) / 86400 if ts else 0.0
        return {
            "path": entry.path,
            "blob_sha": entry.sha,
            "blob_id": blob.id if blob is not None else None,
            "artifact_type": same["artifact_type"] if same else artifact_type(entry.path, hint,
                                                                              self.rules),
            "doc_id": same["doc_id"] if same else doc_id_for(entry.path),
            "doc_version": entry.sha,
            "owner": same["owner"] if same else self.owners.owner(entry.path),
            "system_component": same["system_component"] if same else component(
                entry.path, self.components),
            "last_modified": _iso(ts) if ts else None,
            "staleness_score": round(staleness(age, self.half_life), 6),
            "dirty": 1 if entry.dirty else 0,
            "mtime_ns": entry.mtime_ns,
            "size": entry.size,
        }
