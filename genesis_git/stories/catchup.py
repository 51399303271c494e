"""Story commits that reached this clone without a hook seeing them (a pull of a squash
merge done on the server, a teammate's commits), bound when the shared ledger syncs."""

from __future__ import annotations

import sqlite3
from typing import Any

from genesis_git.kernel.transaction import Transaction
from genesis_git.store import kv
from genesis_git.stories.binding import BindResult, apply, history_sessions
from genesis_git.stories.commits import StoryRules, changed_files, story_ids, walk_commits
from genesis_git.stories.ledger.gitref import git


def bind_new_commits(conn: sqlite3.Connection, repo: Any, config: Any) -> list[str]:
    """Bind story commits that arrived without a hook seeing them (a pull of a squash
    merge done on the server): only commits not reachable from the tips of last time."""
    if repo.head_sha() is None:
        return []
    tips = sorted(set(git(repo.root, "rev-parse", "HEAD", "--branches", "--remotes",
                            check=False).decode().split()))
    before = kv.get_json(conn, "ledger", "scanned") or []
    if before == tips:
        return []
    present = git(repo.root, "cat-file", "--batch-check=%(objectname) %(objecttype)",
                    input="".join(t + "\n" for t in before).encode(),
                    check=False).decode().splitlines() if before else []
    exclude = [f"^{ln.split()[0]}" for ln in present if ln.endswith(" commit")]
    pattern = StoryRules.from_config(config).effective
    commits = walk_commits(repo, ["HEAD", "--branches", "--remotes", *exclude])
    story_commits = [c for c in commits if not c.is_merge and story_ids(c, pattern)]
    with Transaction(conn):
        result = apply(conn, repo, pattern, story_commits, changed_files(repo, story_commits),
                       session_for=history_sessions(conn, repo), notes_before_commit=True,
                       result=BindResult())
        kv.put_json(conn, "ledger", "scanned", tips)
    return list(result.stories)
