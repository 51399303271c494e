"""A snapshot's ``git status`` runs over the store's copy of the index, with git's untracked
cache kept there: what it says is what ``git status`` over the index itself says, after
every kind of change, and the user's index is never written."""

from __future__ import annotations

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from genesis_git.git import statusindex
from genesis_git.git.repo import find_repo
from genesis_git.git.statusindex import (
    CACHED_STATUS,
    FOLDER,
    PLAIN_STATUS,
    status_command,
    version_of,
)

from helpers import git, make_repo, write


def plain_status(root: Path) -> bytes:
    return subprocess.run(["git", *PLAIN_STATUS], cwd=root, capture_output=True,
                          check=True).stdout


def copies(store: Path) -> list[Path]:
    return sorted((store / FOLDER).glob("*.index"))


def untracked_cache(path: Path) -> bool:
    return b"UNTR" in path.read_bytes()


def test_the_copy_says_what_git_status_says_after_every_change(tmp_path: Path,
                                                                genesis_env: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n", "src/m.py": "x = 1\n",
                                       "src/deep/n.py": "y = 2\n", ".gitignore": "*.log\n"})
    kept = find_repo(root)  # a long-lived process (the MCP server) and one per command
    index = root / ".git" / "index"

    def check() -> None:
        expected = plain_status(root)
        assert kept.snapshot().status == expected
        assert find_repo(root).snapshot().status == expected

    check()
    assert len(copies(genesis_env)) == 1 and untracked_cache(copies(genesis_env)[0])
    before = version_of(index)
    steps = [
        lambda: write(root, "src/deep/new.py", "z = 3\n"),  # untracked, in a folder the cache knows
        lambda: write(root, "src/fresh/one.py", "w = 4\n"),  # in a new folder
        lambda: write(root, "src/m.py", "x = 2\n"),  # a tracked file changed
        lambda: write(root, "trace.log", "ignored\n"),
        lambda: write(root, ".gitignore", "*.log\n*.py\n"),  # an ignore rule hides untracked files
        lambda: write(root, ".gitignore", "*.log\n"),
        lambda: (root / "src" / "deep" / "new.py").unlink(),
        lambda: (root / "src" / "deep" / "n.py").unlink(),  # a tracked file deleted
        lambda: write(root, "src/fresh/two [1].py", "v = 5\n"),
    ]
    for step in steps:
        step()
        check()
    assert version_of(index) == before  # the user's index was never written
    git(root, "add", "-A")  # the index changes: a copy of the new one beside the old
    check()
    assert version_of(index) != before and len(copies(genesis_env)) == 2
    git(root, "commit", "-q", "-m", "all")
    check()
    write(root, "src/fresh/three.py", "u = 6\n")
    check()
    assert plain_status(root) == b"?? src/fresh/three.py\0"


def test_the_copy_is_made_once_for_each_version_of_the_index(
        tmp_path: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    args, env = status_command(root / ".git", root / ".git", genesis_env)
    assert args == CACHED_STATUS and env is not None
    copy = Path(env["GIT_INDEX_FILE"])
    index = root / ".git" / "index"
    # the copy keeps the index's time: an entry whose file changed in the tick the index
    # was written is looked at again over the copy too
    assert copy.stat().st_mtime_ns == index.stat().st_mtime_ns
    assert copy.read_bytes() == index.read_bytes()
    find_repo(root).snapshot()  # git writes the copy: its cache and refreshed stat data
    written = version_of(copy)
    assert status_command(root / ".git", root / ".git", genesis_env)[1] == env
    assert version_of(copy) == written
    git(root, "add", "a.txt")  # the same content: git still writes a new index
    args, again = status_command(root / ".git", root / ".git", genesis_env)
    assert again is not None and again["GIT_INDEX_FILE"] != str(copy)
    # the older copy stays while a process that saw that version may still open it
    assert copies(genesis_env) == sorted([copy, Path(again["GIT_INDEX_FILE"])])
    monkeypatch.setattr(statusindex, "SETTLED_NS", 0)  # the index has not changed for long
    assert status_command(root / ".git", root / ".git", genesis_env)[1] == again
    assert copies(genesis_env) == [Path(again["GIT_INDEX_FILE"])]


def test_a_racily_clean_entry_is_looked_at_over_the_copy(tmp_path: Path,
                                                         genesis_env: Path) -> None:
    """A file changed in the same tick as the index was written, to the same size, has the
    stat data its entry records; only the index's time tells git to read it again."""
    root = make_repo(tmp_path / "r", {"a.txt": "aaaa\n"})
    git(root, "config", "core.trustctime", "false")  # the change leaves no trace but the content
    path, index = root / "a.txt", root / ".git" / "index"
    past = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(past, past))
    git(root, "update-index", "-q", "--refresh")  # the entry holds the file's stat data
    path.write_text("bbbb\n")
    os.utime(path, ns=(past, past))
    os.utime(index, ns=(past, past))  # the index written in the file's tick
    assert plain_status(root) == b" M a.txt\0"
    assert find_repo(root).snapshot().status == b" M a.txt\0"


def test_the_plain_status_when_the_copy_would_not_say_the_same(
        tmp_path: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git_dir = root / ".git"
    assert status_command(git_dir, git_dir, genesis_env / "missing") == (PLAIN_STATUS, None)
    blocked = tmp_path / "store"
    (blocked / FOLDER).parent.mkdir()
    (blocked / FOLDER).write_text("")  # where the copies go is a file: no copy can be made
    assert status_command(git_dir, git_dir, blocked) == (PLAIN_STATUS, None)
    monkeypatch.setenv("GIT_INDEX_FILE", str(git_dir / "next-index.lock"))  # a commit's hook
    assert status_command(git_dir, git_dir, genesis_env) == (PLAIN_STATUS, None)
    monkeypatch.delenv("GIT_INDEX_FILE")
    (git_dir / "index").unlink()  # no index yet
    assert status_command(git_dir, git_dir, genesis_env) == (PLAIN_STATUS, None)
    git(root, "reset", "-q")
    git(root, "update-index", "--split-index")  # its entries live in .git/sharedindex.*
    assert list(git_dir.glob("sharedindex.*"))
    assert status_command(git_dir, git_dir, genesis_env) == (PLAIN_STATUS, None)
    write(root, "b.txt", "b\n")
    assert find_repo(root).snapshot().status == plain_status(root) == b"?? b.txt\0"
    assert copies(genesis_env) == []


def test_a_copy_git_cannot_write_still_answers(tmp_path: Path, genesis_env: Path) -> None:
    """Another process holds the copy's lock: git reads the copy and writes nothing."""
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    env = status_command(root / ".git", root / ".git", genesis_env)[1]
    assert env is not None
    Path(env["GIT_INDEX_FILE"] + ".lock").write_bytes(b"")
    write(root, "sub/b.txt", "b\n")
    assert find_repo(root).snapshot().status == plain_status(root) == b"?? sub/b.txt\0"


def test_a_copy_git_cannot_read_gives_way_to_the_index(tmp_path: Path, genesis_env: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    env = status_command(root / ".git", root / ".git", genesis_env)[1]
    assert env is not None
    copy = Path(env["GIT_INDEX_FILE"])
    copy.write_bytes(b"DIRC broken")  # a copy cut short
    write(root, "b.txt", "b\n")
    assert find_repo(root).snapshot().status == plain_status(root) == b"?? b.txt\0"
    # replaced by a new copy, never removed: another process may be about to open it
    assert copy.read_bytes() == (root / ".git" / "index").read_bytes()
    assert find_repo(root).snapshot().status == b"?? b.txt\0"
    assert untracked_cache(copy)  # git read it this time, and wrote its cache there


def test_snapshots_that_make_the_copy_at_once_all_answer(tmp_path: Path,
                                                        genesis_env: Path) -> None:
    root = make_repo(tmp_path / "r", {f"d{i}/f{j}.txt": f"{i} {j}\n"
                                       for i in range(20) for j in range(20)})
    write(root, "d3/new.txt", "new\n")
    expected = plain_status(root)
    for rounds in range(1, 4):
        git(root, "add", "-A")  # a new version of the index: each round copies it anew
        write(root, f"d{rounds}/more.txt", "more\n")
        expected = plain_status(root)
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: find_repo(root).snapshot().status, range(16)))
        assert answers == [expected] * 16
        assert len(copies(genesis_env)) == rounds  # the older ones kept for a while
        assert [p.name for p in (genesis_env / FOLDER).iterdir()
                if not p.name.endswith(".index")] == []  # no part left behind


def test_gc_removes_the_copies_of_worktrees_that_are_gone(
        tmp_path: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    other = make_repo(tmp_path / "other", {"b.txt": "b\n"})  # GENESIS_HOME shared with it
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    for where in (root, tmp_path / "wt", other):
        find_repo(where).snapshot()
    assert len(copies(genesis_env)) == 3
    git(root, "worktree", "remove", str(tmp_path / "wt"))
    from typer.testing import CliRunner

    from genesis_git.cli.main import app

    runner = CliRunner()
    monkeypatch.chdir(root)
    stats = json.loads(runner.invoke(app, ["cache", "stats", "--json"]).output)
    assert stats["status_copies"] == 3 and stats["status_bytes"] == sum(
        p.stat().st_size for p in copies(genesis_env))
    assert "status:   3 copies of the index for git status" in runner.invoke(
        app, ["cache", "stats"]).output
    dry = runner.invoke(app, ["cache", "gc", "--dry-run"])
    assert "and 1 index copies of removed worktrees" in dry.output
    assert len(copies(genesis_env)) == 3
    done = json.loads(runner.invoke(app, ["cache", "gc", "--json"]).output)
    assert done["status_copies_removed"] == 1
    left = copies(genesis_env)
    assert len(left) == 2  # this clone's main worktree and the other repository's
    assert find_repo(root).snapshot().status == plain_status(root) == b""
    assert copies(genesis_env) == left
    assert json.loads(runner.invoke(app, ["cache", "gc", "--json"]).output)[
        "status_copies_removed"] == 0
