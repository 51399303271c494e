"""The state key of a session: a digest of everything a refresh reads, so that a refresh
that would find nothing new is answered without reading the map."""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.git.repo import RawSnapshot, Repo
from genesis_git.index.cache import chunker_id
from genesis_git.store import kv


def state_key(repo: Repo, raw: RawSnapshot, config: Config, embedder_id: str) -> str:
    """A digest of everything a refresh reads: git's output, the stat of every file git
    reports changed, HEAD, the chunker, the embedder and the whole configuration."""
    import hashlib

    h = hashlib.sha1()
    settings = json.dumps([raw.head, chunker_id(config), embedder_id, config.as_dict()],
                          sort_keys=True, default=str)
    for part in (settings.encode(), raw.stage, raw.status):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    for st in raw.status_entries():
        try:
            s = os.stat(repo.root / st.path)
            h.update(f"{st.path}\0{s.st_mtime_ns}\0{s.st_size}\0{s.st_ino}\0".encode(
                "utf-8", "surrogateescape"))
        except OSError:
            h.update(f"{st.path}\0-\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def known_state(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    value = kv.get_json(conn, "state", session_id)
    return value if isinstance(value, dict) else None


def is_current(conn: sqlite3.Connection, repo: Repo, raw: RawSnapshot, config: Config,
               session_id: str) -> bool:
    """The session's map is what a refresh would make of ``raw`` now: the same git output,
    the same changed files by stat, the same settings (a refresh then does nothing, and
    the indexer need not even be loaded)."""
    from genesis_git.providers.embedders import embedder_from_config, embedder_id

    known = known_state(conn, session_id)
    return known is not None and known.get("key") == state_key(
        repo, raw, config, embedder_id(embedder_from_config(config)))


def remember_state(conn: sqlite3.Connection, session_id: str, key: str, files: int, hits: int,
                   excluded: int, skipped: dict[str, list[str]]) -> None:
    """What the next refresh compares with; written with the map it describes."""
    value = {"key": key, "files": files, "hits": hits, "excluded": excluded,
             "skipped": {k: sorted(v) for k, v in skipped.items()}}
    kv.put_json(conn, "state", session_id, value)
