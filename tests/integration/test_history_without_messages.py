"""One history reader for impact and check: ``load_history`` reads a commit's ancestry with
the commit messages (impact) or without them (check, ``messages=False``), and keeps each in
the store the same way; ``genesis check`` reads its base's co-change through it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.git.repo import Repo, find_repo
from genesis_git.impact import history as H
from genesis_git.impact.history import load_history
from genesis_git.store.connect import connect

from helpers import commit_files, git, make_repo


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "h", {"a.py": "a0\n", "b.py": "b0\n", "c.py": "c0\n"})
    for n in range(1, 4):
        commit_files(root, f"Pair a and b, step {n}\n\nbody {n}", {"a.py": f"a{n}\n",
                                                                  "b.py": f"b{n}\n"})
    commit_files(root, "Touch c alone", {"c.py": "c1\n"})
    return root


def _kept(conn: sqlite3.Connection, namespace: str) -> dict[str, dict]:
    rows = conn.execute("SELECT key, value FROM genesis_kv WHERE key LIKE ?", (namespace + ":%",))
    return {key.split(":", 1)[1]: json.loads(value) for key, value in rows}


def _no_log(monkeypatch: pytest.MonkeyPatch, repo: Repo) -> None:
    """``repo.log`` refuses to read the history again (other logs, of a change, still run)."""
    real = repo.log

    def log(fmt: str, *revs: str, options: Sequence[str] = (), names: bool = True) -> Any:
        if f"--max-count={H.MAX_COMMITS}" in options:
            raise AssertionError("the history was read again")
        return real(fmt, *revs, options=options, names=names)

    monkeypatch.setattr(repo, "log", log)


def test_without_messages_the_same_transactions_are_read_and_kept_apart(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connect(tmp_path / "store.db")
    repo = find_repo(root)
    head = repo.head_sha()
    full = load_history(None, repo)
    paths = load_history(conn, repo, messages=False)
    assert (paths.head, paths.files, paths.transactions, paths.shas, paths.changes) == (
        full.head, full.files, full.transactions, full.shas, full.changes)
    assert paths.changes == 5 and full.subjects[0] == "Touch c alone"
    assert (paths.subjects, paths.message_tokens) == ([], [])
    kept = _kept(conn, H.PATHS_NAMESPACE)
    assert list(kept) == [head] and "subjects" not in kept[head] and "tokens" not in kept[head]
    assert _kept(conn, H.CACHE_NAMESPACE) == {}  # a message-less entry serves no impact
    _no_log(monkeypatch, repo)
    H.forget_histories()  # what the store keeps, not what this process keeps
    again = load_history(conn, repo, messages=False)
    assert (again.files, again.transactions, again.shas) == (
        paths.files, paths.transactions, paths.shas)
    H.forget_histories()
    with pytest.raises(AssertionError, match="read again"):
        load_history(conn, repo)  # with messages: not kept yet, so git log is asked


def test_the_history_of_another_commit_and_entries_of_an_older_genesis(
        root: Path, tmp_path: Path) -> None:
    conn = connect(tmp_path / "store.db")
    repo = find_repo(root)
    base = git(root, "rev-parse", "HEAD~2").strip()
    old = load_history(conn, repo, base, messages=False)
    assert (old.head, old.changes) == (base, 3)
    # an entry kept by an older genesis (no version, no count) is read again and replaced
    conn.execute("UPDATE genesis_kv SET value=? WHERE key=?",
                 (json.dumps({"files": ["x.py"], "transactions": [[0]], "shas": ["0" * 40]}),
                  f"{H.PATHS_NAMESPACE}:{base}"))
    conn.commit()
    H.forget_histories()
    again = load_history(conn, repo, base, messages=False)
    assert (again.files, again.transactions) == (old.files, old.transactions)
    assert _kept(conn, H.PATHS_NAMESPACE)[base]["version"] == H.CACHE_VERSION
    for n in range(H.CACHE_KEEP + 1):  # the newest CACHE_KEEP commits are kept
        commit_files(root, f"more {n}", {"c.py": f"more {n}\n"})
        load_history(conn, repo, messages=False)
    assert len(_kept(conn, H.PATHS_NAMESPACE)) == H.CACHE_KEEP


def test_check_reads_its_base_once_through_the_one_reader(root: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    commit_files(root, "Pair a and b, step 4", {"a.py": "a4\n"})  # b.py forgotten
    with Genesis(root) as g:
        g.sessions.start(prebuild=False)  # a store: the history is kept in it
        first = g.check.run("HEAD", min_confidence=0.0).to_json()
        base = git(root, "rev-parse", "HEAD~1").strip()
        kept = _kept(g.workspace.context.conn, H.PATHS_NAMESPACE)
        assert list(kept) == [base] and kept[base]["changes"] == 5
        _no_log(monkeypatch, g.workspace.repo)
        second = g.check.run("HEAD", min_confidence=0.0).to_json()
    assert second == first
    top = first["missing"][0]
    assert top["path"] == "b.py" and "changed with a.py in 4 of its 4 commits" in json.dumps(top)


def test_a_process_reads_a_commits_history_once(root: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process (``genesis mcp``) neither asks git nor decodes the store again
    for a commit whose history it read: a commit's history never changes."""
    conn = connect(tmp_path / "store.db")
    repo = find_repo(root)
    first = load_history(conn, repo)
    _no_log(monkeypatch, repo)
    conn.execute("DELETE FROM genesis_kv")
    conn.commit()
    assert load_history(conn, repo) is first
    assert load_history(None, repo) is first
    H.forget_histories()
    with pytest.raises(AssertionError, match="read again"):
        load_history(conn, repo)
