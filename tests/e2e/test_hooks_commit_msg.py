"""commit-msg and a busy store, with the installed hooks firing on real commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.store.connect import connect
from genesis_git.stories.journal import JOURNAL_NAME

from helpers import commit_files, git, open_session, query, write

runner = CliRunner()


_setup = open_session


_q = query


def _body(root: Path) -> str:
    return git(root, "log", "-1", "--format=%B")


def _try_commit(root: Path, *args: str, env: dict[str, str] | None = None
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", *args], cwd=root, text=True, capture_output=True,
                          env=env, timeout=60)


@pytest.mark.parametrize("comment", ["#", ";"])
def test_an_empty_message_aborts_the_commit_as_without_genesis(
        repo: Path, genesis_env: Path, comment: str) -> None:
    _setup(repo, genesis_env, "a note")
    write(repo, ".genesis.toml", '[story]\nsession_trailer = "always"\n')
    git(repo, "config", "core.commentChar", comment)
    head = git(repo, "rev-parse", "HEAD")
    write(repo, "README.md", "changed\n")
    proc = _try_commit(repo, "-am", "")
    assert proc.returncode != 0 and "empty commit message" in proc.stderr
    # an editor that leaves only comments (in the repository's comment character)
    editor = f"printf '{comment} Please enter the commit message\\n\\n' >"
    proc = _try_commit(repo, "-a", env=dict(os.environ, GIT_EDITOR=editor))
    assert proc.returncode != 0 and "empty commit message" in proc.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    # a comment-character line that is text under another commentChar is content
    proc = _try_commit(repo, "-a", env=dict(os.environ, GIT_EDITOR=(
        f"printf '{'@' if comment == '#' else '#'} real text\\n{comment} comment\\n' >")))
    assert proc.returncode == 0, proc.stderr
    assert _body(repo).count("Genesis-Session: s-1") == 1


def test_the_trailer_goes_at_the_very_end_even_after_a_divider_line(
        repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    msg = "STORY-1: table\n\n| a | b |\n---\nmore text after the rule\n"
    commit_files(repo, msg, {"a.txt": "a\n"})
    lines = _body(repo).rstrip("\n").split("\n")
    assert lines[-1] == "Genesis-Session: s-1" and lines[-2] == ""
    assert "more text after the rule" in lines[:-2]
    # a closing trailer block is extended, not split
    commit_files(repo, "STORY-2: b\n\nbody\n\nSigned-off-by: T <t@example.com>",
                 {"b.txt": "b\n"})
    assert _body(repo).rstrip("\n").split("\n")[-2:] == [
        "Signed-off-by: T <t@example.com>", "Genesis-Session: s-1"]
    # commit -v: the trailer goes above the scissors line, not into the dropped diff
    write(repo, "c.txt", "c\n")
    git(repo, "add", "c.txt")
    proc = _try_commit(repo, "-v", env=dict(os.environ, GIT_EDITOR=(
        "sh -c 'f=$1; { printf \"STORY-3: verbose\\n\"; cat \"$f\"; } > \"$f.new\"; "
        "mv \"$f.new\" \"$f\"' --")))
    assert proc.returncode == 0, proc.stderr
    assert _body(repo).rstrip("\n").split("\n")[-1] == "Genesis-Session: s-1"


def test_trailer_only_on_story_commits_by_default(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a note")
    commit_files(repo, "wip: scratch", {"a.txt": "a\n"})
    assert "Genesis-Session" not in _body(repo)
    commit_files(repo, "STORY-5: real", {"b.txt": "b\n"})
    assert _body(repo).count("Genesis-Session: s-1") == 1
    assert _q(genesis_env, "SELECT story_id FROM story_artifacts WHERE artifact_role="
                           "'decision'") == [("STORY-5",)]
    write(repo, ".genesis.toml", '[story]\nsession_trailer = "never"\n')
    conn = connect(genesis_env / "genesis.db")
    conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, summary) "
                 "VALUES ('s-1', 'repo', 'risk', 'late risk')")
    conn.close()
    commit_files(repo, "STORY-6: no trailer", {"c.txt": "c\n"})
    assert "Genesis-Session" not in _body(repo)
    assert ("STORY-6",) in _q(genesis_env, "SELECT story_id FROM story_artifacts WHERE "
                                           "artifact_role='risk'")  # bound all the same
    write(repo, ".genesis.toml", '[story]\nsession_trailer = "always"\n')
    commit_files(repo, "wip: always", {"d.txt": "d\n"})
    assert _body(repo).count("Genesis-Session: s-1") == 1


def test_a_squash_of_work_in_progress_keeps_one_trailer(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "wip: one", {"a.txt": "a\n"})
    commit_files(repo, "STORY-7: two", {"b.txt": "b\n"})
    # git runs no commit-msg for a squash in a rebase: only what the commits carry counts
    env = dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i '2s/^pick/squash/'", GIT_EDITOR="true")
    proc = subprocess.run(["git", "rebase", "-q", "-i", "HEAD~2"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    body = _body(repo).rstrip("\n").split("\n")
    assert [ln for ln in body if ln.startswith("Genesis-Session")] == ["Genesis-Session: s-1"]
    assert body[-1] == "Genesis-Session: s-1"
    # an amend through the editor runs commit-msg again: still one, still last
    proc = _try_commit(repo, "-q", "--amend", env=dict(os.environ, GIT_EDITOR=(
        "sed -i '1s/$/ (amended)/'")))
    assert proc.returncode == 0, proc.stderr
    body = _body(repo).rstrip("\n").split("\n")
    assert [ln for ln in body if ln.startswith("Genesis-Session")] == ["Genesis-Session: s-1"]
    assert body[0].endswith("(amended)") and body[-1] == "Genesis-Session: s-1"
    # a message that carries the trailer mid-body gets it moved to the end, once
    commit_files(repo, "STORY-8: x\n\nGenesis-Session: s-1\n\nmore text", {"c.txt": "c\n"})
    body = _body(repo).rstrip("\n").split("\n")
    assert [ln for ln in body if ln.startswith("Genesis-Session")] == ["Genesis-Session: s-1"]
    assert body[-1] == "Genesis-Session: s-1" and "more text" in body


@contextmanager
def _locked(db: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holds the store's write lock until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
         "c.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\nsys.stdin.readline()\n"
         "c.execute('ROLLBACK')\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        if holder.stdout:
            holder.stdout.close()


def test_a_locked_store_never_holds_the_commit(repo: Path, genesis_env: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(repo, genesis_env, "a decision")
    # the store's own busy timeout is long; a hook must not wait for it
    monkeypatch.setenv("GENESIS_BUSY_TIMEOUT_MS", "120000")
    journal = genesis_env / JOURNAL_NAME
    with _locked(genesis_env / "genesis.db") as holder:
        write(repo, "a.txt", "a\n")
        git(repo, "add", "a.txt")
        proc = _try_commit(repo, "-q", "-m", "STORY-9: while locked")
        assert holder.poll() is None  # the commit ended while the lock was still held
        assert proc.returncode == 0, proc.stderr
        assert "the binding waits in" in proc.stderr
        sha = git(repo, "rev-parse", "HEAD").strip()
        entries = [json.loads(ln) for ln in journal.read_text().splitlines()]
        assert [(e["hook"], e["sha"]) for e in entries] == [("post-commit", sha)]
        proc = _try_commit(repo, "-q", "--amend", "-m", "STORY-10: reworded while locked")
        assert proc.returncode == 0, proc.stderr
        assert holder.poll() is None
    # an amend runs post-commit, then post-rewrite: both wait, in order
    assert [json.loads(ln)["hook"] for ln in journal.read_text().splitlines()] == [
        "post-commit", "post-commit", "post-rewrite"]
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_records") == [(0,)]
    # the next genesis command applies the journal
    res = runner.invoke(app, ["story", "list", "--json"])
    assert res.exit_code == 0, res.output
    assert [s["story_id"] for s in json.loads(res.output)["stories"]] == ["STORY-10"]
    assert _q(genesis_env, "SELECT story_id, summary FROM story_artifacts WHERE "
                           "artifact_role='decision'") == [("STORY-10", "a decision")]
    assert not journal.exists()


def test_the_next_hook_applies_the_journal(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a decision")
    with _locked(genesis_env / "genesis.db"):
        first = commit_files(repo, "STORY-11: while locked", {"a.txt": "a\n"})
    assert (genesis_env / JOURNAL_NAME).exists()
    commit_files(repo, "STORY-12: next", {"b.txt": "b\n"})
    assert not (genesis_env / JOURNAL_NAME).exists()
    assert _q(genesis_env, "SELECT story_id, target_ref FROM story_links ORDER BY id")[0] == (
        "STORY-11", first)
    assert _q(genesis_env, "SELECT story_id FROM story_artifacts WHERE artifact_role="
                           "'decision'") == [("STORY-11",)]
