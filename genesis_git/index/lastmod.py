"""The last-modified time of each path: one ``git log`` pass, cached by HEAD in ``genesis_kv``.

When HEAD moved forward from the cached one, only the new commits are read.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from genesis_git.git.repo import Repo, run_git
from genesis_git.store import kv
from genesis_git.store.connect import transaction


def last_modified_times(conn: sqlite3.Connection, repo: Repo, head: str | None,
                        wanted: set[str]) -> dict[str, int]:
    """Commit time of the last change of each path, from one ``git log`` pass cached by HEAD."""
    if head is None or not wanted:
        return {}
    cached: dict[str, Any] = kv.get_json(conn, "lastmod") or {}
    times: dict[str, int] = {}
    if cached.get("head") == head:
        return dict(cached.get("times", {}))
    base = cached.get("head")
    rev = head
    if base and run_git(["merge-base", "--is-ancestor", base, head], repo.root,
                        check=False).returncode == 0:
        times = dict(cached.get("times", {}))
        rev = f"{base}..{head}"
    fresh = _log_times(repo, rev, wanted if rev == head else None)
    for path, ts in fresh.items():
        times[path] = max(ts, times.get(path, 0)) if rev != head else ts
    missing = wanted - times.keys()
    if missing and rev != head:
        times.update(_log_times(repo, head, missing))
    with transaction(conn):
        kv.put_json(conn, "lastmod", "", {"head": head, "times": times})
    return times


def _log_times(repo: Repo, rev: str, stop_when: set[str] | None) -> dict[str, int]:
    """The newest commit time of each path in ``rev``'s history; git stops once every path
    of ``stop_when`` has been seen."""
    times: dict[str, int] = {}
    remaining = set(stop_when) if stop_when is not None else None
    for commit in repo.log("%ct", rev, options=("--no-renames",)):
        ts = int(commit.header or 0)
        for path in commit.paths:
            if path not in times:
                times[path] = ts
                if remaining is not None:
                    remaining.discard(path)
        if remaining is not None and not remaining:
            break
    return times
