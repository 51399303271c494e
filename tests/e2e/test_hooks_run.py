"""The hook entry point: commit-msg trailer and enforcement, failures logged, never blocking."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.hooks import run as hookrun
from genesis_git.store.connect import connect

from helpers import git, write

runner = CliRunner()
REJECT_LINE = ('genesis: commit rejected: the subject names no story id (pattern '
               '[A-Z][A-Z0-9]+-\\d+, e.g. "STORY-12: ..."; a "Story:" trailer also counts)')


def _setup(root: Path, home: Path, session: str | None = "s-1") -> None:
    inst.install(find_repo(root), python=sys.executable)
    conn = connect(home / "genesis.db")
    if session:
        conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES (?,?,?,?)",
                     (session, "repo", str(root), "active"))
    conn.close()


def _commit(root: Path, *args: str, env: dict[str, str] | None = None,
            rel: str | None = None) -> subprocess.CompletedProcess[str]:
    if rel:
        write(root, rel, rel + "\n")
        git(root, "add", rel)
    return subprocess.run(["git", "commit", "-q", *args], cwd=root, text=True,
                          capture_output=True, env=env)


def _count(home: Path, sql: str) -> int:
    conn = sqlite3.connect(home / "genesis.db")
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def test_commit_msg_adds_the_session_trailer_once(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    proc = _commit(repo, "-m", "STORY-1: one", "-m", "Signed-off-by: A <a@b.c>", rel="a.txt")
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "log", "-1", "--format=%B").strip() == (
        "STORY-1: one\n\nSigned-off-by: A <a@b.c>\nGenesis-Session: s-1")
    # amending keeps one trailer (git trailer semantics, addIfDifferent)
    _commit(repo, "--amend", "--no-edit")
    assert git(repo, "log", "-1", "--format=%B").count("Genesis-Session: s-1") == 1
    # and running the hook twice on one file adds it once
    msg = repo / "msg.txt"
    msg.write_text("STORY-2: two\n")
    assert hookrun.main(["commit-msg", str(msg)]) == 0
    assert hookrun.main(["commit-msg", str(msg)]) == 0
    assert msg.read_text() == "STORY-2: two\n\nGenesis-Session: s-1\n"


def test_commit_msg_without_session_or_store_leaves_the_message(
        repo: Path, genesis_env: Path) -> None:
    msg = repo / "msg.txt"
    msg.write_text("STORY-2: two\n")
    assert hookrun.main(["commit-msg", str(msg)]) == 0  # no store at all
    assert not (genesis_env / "genesis.db").exists()
    _setup(repo, genesis_env, session=None)
    assert hookrun.main(["commit-msg", str(msg)]) == 0
    assert msg.read_text() == "STORY-2: two\n"
    assert hookrun.main(["commit-msg"]) == 0


def test_require_story_rejects_with_one_line(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    write(repo, ".genesis.toml", "[story]\nrequire_story = true\n")
    proc = _commit(repo, "-m", "no story here", rel="a.txt")
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [REJECT_LINE]
    assert git(repo, "log", "-1", "--format=%s").strip() == "initial"
    for msg in ("STORY-9: fine", "fixup! no story here", "squash! no story here",
                'Revert "no story here"'):
        assert _commit(repo, "-m", msg).returncode == 0, msg
        git(repo, "reset", "-q", "--soft", "HEAD~1")
    assert _commit(repo, "-m", "plain subject", "-m", "Story: OPS-3").returncode == 0
    assert _commit(repo, "--no-verify", "-m", "skips the check", rel="b.txt").returncode == 0


def test_require_story_exempts_merges(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    git(repo, "checkout", "-q", "-b", "feature")
    assert _commit(repo, "-m", "STORY-4: on a branch", rel="f.txt").returncode == 0
    git(repo, "checkout", "-q", "main")
    _commit(repo, "-m", "STORY-4: on main", rel="m.txt")
    write(repo, ".genesis.toml", "[story]\nrequire_story = true\n")
    proc = subprocess.run(["git", "merge", "--no-ff", "-q", "--no-edit", "feature"], cwd=repo,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    body = git(repo, "log", "-1", "--format=%B")
    assert body.startswith("Merge branch 'feature'")
    assert "Genesis-Session" not in body
    # a merge commit binds nothing of its own; both branch commits stay linked
    assert _count(genesis_env, "SELECT COUNT(*) FROM story_links") == 2


def test_the_hook_path_stays_light(repo: Path, genesis_env: Path) -> None:
    """A commit's hooks import neither typer/rich/numpy nor the costly parts of the stdlib."""
    _setup(repo, genesis_env)
    assert _commit(repo, "-m", "STORY-5: light", rel="l.txt").returncode == 0
    probe = ("import sys\nbefore = set(sys.modules)\nfrom genesis_git.hooks import run\n"
             "open('m.txt','w').write('STORY-5: x\\n')\n"
             "for argv in (['commit-msg', 'm.txt'], ['post-commit']):\n"
             "    assert run.main(argv) == 0\n"
             "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
             "print(sorted(new & {'typer', 'rich', 'numpy', 'click', 'subprocess', 'pathlib',"
             " 'dataclasses', 'typing', 'tomllib', 'difflib'}))\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    assert proc.stderr == ""
    assert (repo / "m.txt").read_text() == "STORY-5: x\n\nGenesis-Session: s-1\n"


def test_a_locked_store_never_loses_the_commit(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    holder = sqlite3.connect(genesis_env / "genesis.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    env = dict(os.environ, GENESIS_BUSY_TIMEOUT_MS="50")
    try:
        proc = _commit(repo, "-m", "STORY-6: while locked", env=env, rel="x.txt")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert proc.returncode == 0
    journal = genesis_env / "pending-bindings.jsonl"
    assert proc.stderr.splitlines() == [
        "genesis: the store is busy or read-only (database is locked); the binding waits in "
        f"{journal} and the next genesis command applies it"]
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "log", "-1", "--format=%s").strip() == "STORY-6: while locked"
    assert not (genesis_env / "hooks.log").exists()
    res = runner.invoke(app, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(res.output)["checks"]}
    assert checks["pending bindings"]["status"] == "warn"
    assert checks["pending bindings"]["message"].startswith(
        f"1 binding(s) wait in {journal} (post-commit {sha[:10]}")
    assert not journal.exists() or journal.read_text()  # doctor only reads
    res = runner.invoke(app, ["story", "rebuild"])
    assert res.exit_code == 0, res.output
    assert not journal.exists()
    assert _count(genesis_env, f"SELECT COUNT(*) FROM story_links WHERE target_ref='{sha}'") == 1
    res = runner.invoke(app, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(res.output)["checks"]}
    assert checks["pending bindings"]["status"] == "ok"


def test_an_unwritable_store_logs_beside_git(repo: Path, genesis_env: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    inst.install(find_repo(repo), python=sys.executable)
    blocker = repo.parent / "a-file"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("GENESIS_HOME", str(blocker / "store"))
    proc = _commit(repo, "-m", "STORY-7: nowhere to write", rel="y.txt")
    assert proc.returncode == 0
    fallback = repo / ".git" / "genesis-hooks.log"
    assert proc.stderr.splitlines() == [
        "genesis: warning: post-commit hook failed (NotADirectoryError: [Errno 20] Not a "
        f"directory: '{blocker / 'store'}'); the commit is kept; details in {fallback}; "
        "`genesis story rebuild` recovers"]
    res = runner.invoke(app, ["doctor"])
    assert "[warn] hook failures: 1 hook run(s) failed" in res.output
    assert f"(log: {fallback})" in res.output


def test_failures_outside_a_repository_still_exit_0(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert hookrun.main(["post-commit"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"genesis: warning: post-commit hook failed (EnvironmentProblem: {tmp_path}: "
                   "not a git repository (run genesis inside a git working tree, or `git init` "
                   "first)); the commit is kept; the log could not be written; "
                   "`genesis story rebuild` recovers"]


def test_entry_point_usage_and_switch(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert hookrun.main([]) == 2
    assert hookrun.main(["pre-merge-commit"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "usage: python -m genesis_git.hooks.run {commit-msg|post-commit|post-rewrite|pre-push} [args]"] * 2
    monkeypatch.setenv("GENESIS_HOOKS", "0")
    assert hookrun.main(["pre-push"]) == 0


def test_post_rewrite_without_pairs_or_store_does_nothing(
        repo: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert hookrun.main(["post-rewrite", "amend"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{'a' * 40} {'a' * 40}\n"))
    assert hookrun.main(["post-rewrite", "rebase"]) == 0
    head = git(repo, "rev-parse", "HEAD").strip()
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{'b' * 40} {head}\n"))
    assert hookrun.main(["post-rewrite", "rebase"]) == 0  # "initial" names no story
    assert not (genesis_env / "genesis.db").exists()


def test_indexing_failure_after_binding_only_logs(repo: Path, genesis_env: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from genesis_git.index import indexer

    def boom(*_a: object, **_k: object) -> int:
        raise RuntimeError("indexer exploded")

    monkeypatch.setattr(indexer, "ensure_blobs", boom)
    monkeypatch.setenv("GENESIS_HOOKS_INDEX", "inline")
    write(repo, "z.txt", "z\n")
    git(repo, "add", "z.txt")
    git(repo, "commit", "-q", "-m", "STORY-8: index me")
    assert hookrun.main(["post-commit"]) == 0
    assert capsys.readouterr().err.startswith(
        "genesis: warning: post-commit (indexing) hook failed (RuntimeError: indexer exploded)")
    assert _count(genesis_env, "SELECT COUNT(*) FROM story_links") == 1


def test_commit_msg_rejects_in_process(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, ".genesis.toml", "[story]\nrequire_story = true\n")
    msg = repo / "msg.txt"
    msg.write_text("no id\n")
    assert hookrun.main(["commit-msg", str(msg)]) == hookrun.REJECT
    assert capsys.readouterr().err.splitlines() == [REJECT_LINE]
    (repo / ".git" / "MERGE_HEAD").write_text("0" * 40 + "\n")
    assert hookrun.main(["commit-msg", str(msg)]) == 0  # a merge in progress is exempt


def test_the_detached_indexer_in_process(repo: Path, genesis_env: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    blob = git(repo, "rev-parse", "HEAD:README.md").strip()
    stdin = io.TextIOWrapper(io.BytesIO(f"README.md\0{blob}\0".encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert hookrun.main(["index-blobs"]) == 0
    assert _count(genesis_env, f"SELECT COUNT(*) FROM rag_blob_cache WHERE blob_sha='{blob}'") \
        == 1


def test_hook_log_rotates_and_gives_up_quietly(repo: Path, genesis_env: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from genesis_git.stories import hooklog

    r = find_repo(repo)
    monkeypatch.setattr(hooklog, "MAX_BYTES", 10)
    first = hooklog.record(r, "post-commit", "Boom: one", "trace 1")
    assert first == genesis_env / "hooks.log"
    hooklog.record(r, "post-commit", "Boom: two", "trace 2")
    assert (genesis_env / "hooks.log.1").read_text().startswith("--- ")
    assert [f.summary for _, fs in hooklog.read_failures(r) for f in fs] == ["Boom: two"]
    assert hooklog.record(None, "post-commit", "x", "y") is None
    blocker = repo.parent / "file"
    blocker.write_text("")
    monkeypatch.setenv("GENESIS_HOME", str(blocker / "store"))
    monkeypatch.setattr(hooklog, "FALLBACK_NAME", "missing-dir/genesis-hooks.log")
    (repo / ".git" / "missing-dir").write_text("a file where a folder should be")
    assert hooklog.record(r, "post-commit", "x", "y") is None
