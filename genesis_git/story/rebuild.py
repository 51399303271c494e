"""``genesis story rebuild``: re-derive records, commit links and changed files from ``git log``.

It walks HEAD, every local branch, every remote-tracking branch and every tag,
oldest first, and binds every non-merge commit whose subject (or ``Story:``
trailer) names a story.  It is idempotent, and it never deletes what exists
only in the ledger (notes, decisions, risks, the requirement, manual links).

It also recovers from a hook that failed: a commit whose ``Genesis-Session``
trailer names a session in the store binds that session's notes written
before the commit.  Linked commits that are no longer reachable (an old SHA
whose rewrite was missed) are counted, and removed with ``prune=True``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from genesis_git.config import Config
from genesis_git.repo import Repo
from genesis_git.story import hooklog, ledger
from genesis_git.story.binding import BindResult, apply, trailer_sessions
from genesis_git.story.commits import (
    StoryRules,
    changed_files,
    skipped_ids,
    story_ids,
    walk_commits,
)

REVS = ("HEAD", "--branches", "--remotes", "--tags")


def rebuild(conn: sqlite3.Connection, repo: Repo, config: Config, *,
            prune: bool = False) -> dict[str, Any]:
    rules = StoryRules.from_config(config)
    pattern = rules.effective
    commits = walk_commits(repo, REVS) if repo.head_sha() else []
    story_commits = [c for c in commits if not c.is_merge and story_ids(c, pattern)]
    skipped: dict[str, int] = {}
    for c in commits:
        if not c.is_merge:
            for sid in skipped_ids(c, rules):
                skipped[sid] = skipped.get(sid, 0) + 1
    changes = changed_files(repo, story_commits)
    reachable = {c.sha for c in commits}
    with ledger.immediate(conn):
        result = apply(conn, repo, pattern, story_commits, changes,
                       session_for=trailer_sessions(conn), notes_before_commit=True,
                       result=BindResult())
        linked = [r[0] for r in conn.execute(
            "SELECT DISTINCT target_ref FROM story_links WHERE link_type='commit'")]
        stale = [sha for sha in linked if sha not in reachable]
        pruned = 0
        if prune:
            for sha in stale:
                ledger.drop_commit(conn, sha)
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
        "pruned": pruned,
        "failures_cleared": cleared,
        "skipped": dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
