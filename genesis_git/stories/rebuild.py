"""``genesis story rebuild``: re-derive records, commit links and changed files from ``git log``.

It walks HEAD, every local branch, every remote-tracking branch and every tag,
oldest first, and binds every non-merge commit whose subject (or ``Story:``
trailer) names a story.  It is idempotent, and it never deletes what exists
only in the ledger (notes, decisions, risks, the requirement, manual links).

It also recovers from hooks that failed or did not run: a note still pending
binds to the first story commit made after it was written by its session (the
``Genesis-Session`` trailer) or, without a trailer, on the session's branch.  Linked commits that are no longer reachable (an old SHA
whose rewrite was missed) are counted, and removed with ``prune=True``; a linked commit
this clone does not hold (a teammate's, not fetched yet) is neither, only counted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.git.repo import Repo
from genesis_git.kernel.progress import report, working
from genesis_git.store import connect as store
from genesis_git.store import stories as story_rows
from genesis_git.stories import hooklog
from genesis_git.stories import tables as ledger
from genesis_git.stories.binding import BindResult, apply, history_sessions
from genesis_git.stories.commits import (
    StoryRules,
    changed_files,
    skipped_ids,
    story_ids,
    walk_commits,
)
from genesis_git.stories.context import fetched

REVS = ("HEAD", "--branches", "--remotes", "--tags")


def rebuild(conn: sqlite3.Connection, repo: Repo, config: Config, *,
            prune: bool = False) -> dict[str, Any]:
    """Re-derive the stories from git log; the stages are reported as progress."""
    with working("story rebuild: reading git log"):
        return _rebuild(conn, repo, StoryRules.from_config(config), prune)


def _rebuild(conn: sqlite3.Connection, repo: Repo, rules: StoryRules,
             prune: bool) -> dict[str, Any]:
    pattern = rules.effective
    commits = walk_commits(repo, REVS) if repo.head_sha() else []
    story_commits = [c for c in commits if not c.is_merge and story_ids(c, pattern)]
    skipped: dict[str, int] = {}
    for c in commits:
        if not c.is_merge:
            for sid in skipped_ids(c, rules):
                skipped[sid] = skipped.get(sid, 0) + 1
    report("story rebuild: reading the files each story commit changed", 0, len(story_commits))
    changes = changed_files(repo, story_commits)
    reachable = {c.sha for c in commits}
    report("story rebuild: binding the story commits", 0, len(story_commits))
    with ledger.immediate(conn):
        result = apply(conn, repo, pattern, story_commits, changes,
                       session_for=history_sessions(conn, repo), notes_before_commit=True,
                       result=BindResult())
        linked = story_rows.linked_commits(conn)
        missing = [sha for sha in linked if sha not in reachable]
        held = fetched(repo, missing)
        # a teammate's commit not fetched yet is not stale: only what this clone holds
        stale = [sha for sha in missing if sha in held]
        not_fetched = [sha for sha in missing if sha not in held]
        pruned = 0
        if prune:
            for sha in stale:  # unreachable here, maybe not in a teammate's clone: local only
                ledger.drop_commit(conn, sha, record=False)
                pruned += 1
    cleared = hooklog.clear(repo)
    return {
        "commits_scanned": len(commits),
        "story_commits": len(story_commits),
        "stories": result.stories,
        "created": result.created,
        "links_added": result.links,
        "files_added": result.files,
        "notes_bound": result.notes,
        "unreachable": [] if prune else stale,
        "not_fetched": not_fetched,
        "pruned": pruned,
        "failures_cleared": cleared,
        "skipped": dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


# the records first: private ones and those not yet shared exist nowhere else, and the
# rows below name them (a private note stays private, nothing is recorded twice)
LEDGER_TABLES = ("ledger_records", "sessions", "session_artifacts", "story_records",
                 "story_artifacts", "story_links")


def move_aside(db: Path) -> Path | None:
    """Rename the store (and its -wal and -shm) to ``genesis.db.damaged-<UTC time>``."""
    if not db.exists():
        return None
    import os
    import time

    aside = db.with_name(f"{db.name}.damaged-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
    os.replace(db, aside)
    for suffix in ("-wal", "-shm"):
        side = db.with_name(db.name + suffix)
        if side.exists():
            os.replace(side, aside.with_name(aside.name + suffix))
    return aside


def salvage(conn: sqlite3.Connection, old: Path) -> dict[str, int]:
    """Copy the ledger rows that can still be read from a damaged store, table by table
    (a table that cannot be read is skipped; the derived cache is not copied).  Call it
    on the new store before the ledger's view is refreshed: the records come first, so
    that the view's refresh finds them known and adds nothing twice."""
    out: dict[str, int] = {}
    try:
        store.attach_readonly(conn, str(old), "old")
    except sqlite3.DatabaseError:
        return out
    try:
        for table in LEDGER_TABLES:
            try:
                cols = store.columns(conn, "main", table)
                have = set(store.columns(conn, "old", table))
                shared = ",".join(c for c in cols if c in have)
                with ledger.immediate(conn):
                    out[table] = store.copy_rows(conn, "old", table, shared)
            except sqlite3.DatabaseError:
                out[table] = -1  # unreadable: what git holds comes back below
    finally:
        store.detach(conn, "old")
    return out
