"""Bindings a hook could not write because the store was locked or read-only.

A hook waits at most :data:`HOOK_BUSY_MS` for the store.  When it cannot write, it
appends one JSON line to ``pending-bindings.jsonl`` next to the store (the commit
and the worktree, or the rewritten pairs) and the commit goes ahead at once.  The
next hook that gets the store, or the next genesis command, replays the journal:
the same binding as the hook would have made, with the notes written up to the
commit.  Nothing is lost, and no commit waits for the busy timeout.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

JOURNAL_NAME = "pending-bindings.jsonl"
HOOK_BUSY_MS = 500


def journal_path(db_path: str | os.PathLike[str]) -> str:
    return os.path.join(os.path.dirname(os.fspath(db_path)), JOURNAL_NAME)


def record(db_path: str | os.PathLike[str], entry: dict[str, Any]) -> str | None:
    """Append one entry; the file written, or None when the folder cannot be written."""
    path = journal_path(db_path)
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write: appends of concurrent hooks do not interleave
        finally:
            os.close(fd)
    except OSError:
        return None
    return path


def pending(db_path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The entries waiting (``genesis doctor`` shows them)."""
    try:
        with open(journal_path(db_path), encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def replay(conn: sqlite3.Connection, db_path: str | os.PathLike[str]) -> int:
    """Apply the waiting entries (one process at a time: the file is taken by a rename).
    Entries that fail again go back to the journal.  Returns the entries applied."""
    path = journal_path(db_path)
    if not os.path.exists(path):
        return 0
    taken = f"{path}.{os.getpid()}"
    try:
        os.rename(path, taken)
    except OSError:
        return 0  # another process took it, or the folder is read-only
    try:
        with open(taken, encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:  # pragma: no cover - it was just renamed
        return 0
    done = 0
    failed: list[dict[str, Any]] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        try:
            if _apply(conn, entry):
                done += 1
        except Exception:
            failed.append(entry)
    for entry in failed:
        record(db_path, entry)
    try:
        os.unlink(taken)
    except OSError:  # pragma: no cover
        pass
    return done


def replay_journal(conn: sqlite3.Connection, db_path: str | os.PathLike[str]) -> int:
    """:func:`replay` when there is a journal (a genesis command calls this on opening the
    store: one ``stat`` when there is nothing to do)."""
    if not os.path.exists(journal_path(db_path)):
        return 0
    return replay(conn, db_path)


def _apply(conn: sqlite3.Connection, entry: dict[str, Any]) -> bool:
    from pathlib import Path

    from genesis_git.git.repo import Repo, run_git
    from genesis_git.stories import binding, rewrite
    from genesis_git.stories.commits import read_commits, story_settings

    root = entry.get("root")
    if not root or not os.path.isdir(root):
        return False  # the worktree is gone: `genesis story rebuild` covers what is left
    repo = Repo(root=Path(root), git_dir=Path(entry.get("git_dir") or root),
                common_dir=Path(entry.get("common_dir") or root))
    pattern = story_settings(root).effective
    if entry.get("hook") == "post-commit":
        sha = str(entry.get("sha", ""))
        if not sha or run_git(["cat-file", "-e", f"{sha}^{{commit}}"], repo.root,
                              check=False).returncode != 0:
            return False
        try:
            commits = read_commits(repo, [sha])
        except Exception:  # the commit is gone (gc): rebuild covers what is left
            return False
        if not commits:
            return False
        binding.bind_commit(conn, repo, pattern, commits[0], late=True)
        return True
    if entry.get("hook") == "post-rewrite":
        pairs = [(str(o), str(n)) for o, n in entry.get("pairs", [])]
        rewrite.rewrite(conn, repo, pattern, str(entry.get("kind", "amend")), pairs)
        return True
    return False
