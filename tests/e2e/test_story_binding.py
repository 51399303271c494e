"""Late binding with the installed hooks firing: commit, amend, rebase -i, cherry-pick, revert, merge."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.config.settings import load_config
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.hooks import run as hookrun
from genesis_git.stories import binding, rewrite

from helpers import commit_files, git, open_session, query, write

runner = CliRunner()


def _setup(root: Path, home: Path, notes: tuple[tuple[str, str], ...] = ()) -> None:
    open_session(root, home, *notes)




_q = query


def _links(home: Path, story: str) -> list[str]:
    return [r[0] for r in _q(home, "SELECT target_ref FROM story_links WHERE story_id=? AND "
                                   "link_type='commit' ORDER BY id", story)]


def _context(story: str) -> dict[str, Any]:
    res = runner.invoke(app, ["story", "context", story, "--json"])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.output))


def _rebase(root: Path, *args: str, seq: str = "true", editor: str = "true") -> None:
    env = dict(os.environ, GIT_SEQUENCE_EDITOR=seq, GIT_EDITOR=editor)
    proc = subprocess.run(["git", "rebase", "-q", *args], cwd=root, env=env, text=True,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr


def test_late_binding_end_to_end(repo: Path, genesis_env: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENESIS_HOOKS_INDEX", "inline")
    inst.install(find_repo(repo), python=sys.executable)
    res = runner.invoke(app, ["session", "start", "--doc", "docs/req/orders.md"])
    assert res.exit_code == 0, res.output
    for args in (["orders get a discount_code column", "--role", "decision",
                  "--path", "db/schema.sql", "--section", "orders"],
                 ["old clients ignore unknown fields", "--role", "risk"]):
        assert runner.invoke(app, ["session", "note", *args]).exit_code == 0
    base = git(repo, "rev-parse", "HEAD").strip()

    # a commit without a story id binds nothing; the notes wait
    wip = commit_files(repo, "wip: scratch", {"scratch.txt": "x\n"})
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_records") == [(0,)]
    assert _q(genesis_env, "SELECT COUNT(*) FROM session_artifacts WHERE bound_commit IS NULL") \
        == [(2,)]

    sha = commit_files(repo, "STORY-12: add a discount code", {
        "db/schema.sql": "CREATE TABLE orders (id INTEGER, discount_code TEXT);\n",
        "src/shop/discount.py": "def apply(code):\n    return code\n",
        "README.md": None,
    })
    assert "Genesis-Session: s-" in git(repo, "log", "-1", "--format=%B")
    ctx = _context("STORY-12")
    story = ctx["story"]
    assert (story["title"], story["status"], story["baseline_commit_sha"]) == (
        "add a discount code", "in_progress", wip)
    assert ctx["commits"] == [{
        "sha": sha, "short": sha[:10], "date": git(repo, "log", "-1", "--format=%aI").strip(),
        "author": "Test User <test@example.com>", "subject": "STORY-12: add a discount code",
        "reachable": True, "fetched": True}]
    assert ctx["files"] == [{"path": "README.md", "change": "removed"},
                            {"path": "db/schema.sql", "change": "updated"},
                            {"path": "src/shop/discount.py", "change": "added"}]
    assert list(ctx["artifacts"]) == ["requirement", "decision", "risk"]
    req = ctx["artifacts"]["requirement"][0]
    assert (req["path"], req["change_type"], req["doc_version"]) == (
        "docs/req/orders.md", "linked", git(repo, "rev-parse", f"{base}:docs/req/orders.md").strip())
    dec = ctx["artifacts"]["decision"][0]
    assert (dec["summary"], dec["path"], dec["section"]) == (
        "orders get a discount_code column", "db/schema.sql", "orders")
    assert _q(genesis_env, "SELECT DISTINCT bound_commit FROM session_artifacts") == [(sha,)]
    # the blobs of the commit are in the cache (indexed inline, as asked)
    blob = git(repo, "rev-parse", "HEAD:src/shop/discount.py").strip()
    assert _q(genesis_env, "SELECT status FROM rag_blob_cache WHERE blob_sha=?", blob) == [
        ("ready",)]

    # running post-commit again adds nothing
    counts = "SELECT (SELECT COUNT(*) FROM story_links), (SELECT COUNT(*) FROM story_artifacts)"
    before = _q(genesis_env, counts)
    assert hookrun.main(["post-commit"]) == 0
    assert _q(genesis_env, counts) == before
    # a second commit of the story has no notes left to bind
    commit_files(repo, "STORY-12: tests", {"tests/test_discount.py": "def test():\n    pass\n"})
    ctx = _context("STORY-12")
    assert len(ctx["commits"]) == 2
    assert sum(len(v) for v in ctx["artifacts"].values()) == 3


def test_ids_from_subject_body_heads_and_story_trailer(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, (("note", "shared"),))
    sha = commit_files(repo, "STORY-1, STORY-2: shared work", {"a.txt": "a\n"},
                  "-m", "follows STORY-99 and UTF-8 fixes\nSTORY-3: squashed in",
                  "-m", "Story: OPS-9")
    rows = _q(genesis_env, "SELECT story_id, target_ref FROM story_links ORDER BY story_id")
    assert rows == [(s, sha) for s in ("OPS-9", "STORY-1", "STORY-2", "STORY-3")]
    # the note is bound to every story of the commit
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_artifacts WHERE doc_id LIKE "
                           "'session-artifact:%'") == [(4,)]
    assert _q(genesis_env, "SELECT title FROM story_records WHERE story_id='STORY-1'") == [
        ("shared work",)]


def test_no_verify_still_binds(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, (("decision", "d"),))
    sha = commit_files(repo, "STORY-4: skipped verify", {"v.txt": "v\n"}, "--no-verify")
    assert "Genesis-Session" not in git(repo, "log", "-1", "--format=%B")
    assert _links(genesis_env, "STORY-4") == [sha]
    assert _q(genesis_env, "SELECT bound_commit FROM session_artifacts") == [(sha,)]


def test_amend_moves_everything_to_the_new_commit(repo: Path, genesis_env: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(repo, genesis_env, (("analysis", "why"),))
    old = commit_files(repo, "STORY-5: first", {"a.txt": "a\n"})
    write(repo, "b.txt", "b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "--amend", "-m", "STORY-5: first, better")
    new = git(repo, "rev-parse", "HEAD").strip()
    assert _links(genesis_env, "STORY-5") == [new]
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_artifacts WHERE doc_id=?", old) == [(0,)]
    assert _q(genesis_env, "SELECT bound_commit FROM session_artifacts") == [(new,)]
    assert _context("STORY-5")["files"] == [{"path": "a.txt", "change": "added"},
                                            {"path": "b.txt", "change": "added"}]
    # replaying the same rewrite in-process changes nothing
    before = _q(genesis_env, "SELECT * FROM story_artifacts ORDER BY id")
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{old} {new}\n"))
    assert hookrun.main(["post-rewrite", "amend"]) == 0
    assert _q(genesis_env, "SELECT * FROM story_artifacts ORDER BY id") == before


def test_amend_can_add_the_story_id_late(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, (("risk", "r"),))
    commit_files(repo, "wip", {"w.txt": "w\n"})
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_links") == [(0,)]
    git(repo, "commit", "-q", "--amend", "-m", "STORY-6: now with a story")
    new = git(repo, "rev-parse", "HEAD").strip()
    assert _links(genesis_env, "STORY-6") == [new]
    assert _q(genesis_env, "SELECT bound_commit FROM session_artifacts") == [(new,)]


@pytest.mark.slow
def test_rebase_autosquash_then_squash(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    base = git(repo, "rev-parse", "HEAD").strip()
    c1 = commit_files(repo, "STORY-7: one", {"one.txt": "1\n"})
    c2 = commit_files(repo, "STORY-8: two", {"two.txt": "2\n"})
    c3 = commit_files(repo, "fixup! STORY-7: one", {"one.txt": "1 fixed\n"})
    _rebase(repo, "-i", "--autosquash", base)
    new1, new2 = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    assert _links(genesis_env, "STORY-7") == [new1]
    assert _links(genesis_env, "STORY-8") == [new2]
    assert not _q(genesis_env, "SELECT * FROM story_links WHERE target_ref IN (?,?,?)",
                  c1, c2, c3)
    assert _q(genesis_env, "SELECT baseline_commit_sha FROM story_records WHERE "
                           "story_id='STORY-8'") == [(new1,)]

    _rebase(repo, "-i", base, seq="sed -i -e '2s/^pick/squash/'")
    squashed = git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "log", "-1", "--format=%B").split("\n\n")[:3] == [
        "STORY-7: one", "Genesis-Session: s-1", "STORY-8: two"]
    assert _links(genesis_env, "STORY-7") == [squashed]
    assert _links(genesis_env, "STORY-8") == [squashed]
    assert _context("STORY-8")["files"] == [{"path": "one.txt", "change": "added"},
                                            {"path": "two.txt", "change": "added"}]
    assert _q(genesis_env, "SELECT baseline_commit_sha FROM story_records WHERE "
                           "story_id='STORY-8'") == [(base,)]


@pytest.mark.slow
def test_post_commit_waits_for_post_rewrite_during_a_rebase(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    base = git(repo, "rev-parse", "HEAD").strip()
    c1 = commit_files(repo, "STORY-9: one", {"one.txt": "1\n"})
    commit_files(repo, "STORY-10: two", {"two.txt": "2\n"})
    env = dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i -e '1s/^pick/edit/'")
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=repo, env=env, check=True,
                   capture_output=True)
    assert (repo / ".git" / "rebase-merge").is_dir()
    git(repo, "commit", "-q", "--amend", "-m", "STORY-11: one, renamed")
    assert _links(genesis_env, "STORY-11") == []  # nothing while the rebase runs
    assert _links(genesis_env, "STORY-9") == [c1]
    subprocess.run(["git", "rebase", "--continue"], cwd=repo, check=True, capture_output=True)
    new1, new2 = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    assert _links(genesis_env, "STORY-9") == []
    assert _links(genesis_env, "STORY-11") == [new1]
    assert _links(genesis_env, "STORY-10") == [new2]


def test_cherry_pick_binds_the_picked_commits(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    git(repo, "checkout", "-q", "-b", "other")
    a = commit_files(repo, "STORY-13: a", {"a13.txt": "a\n"})
    b = commit_files(repo, "STORY-13: b", {"b13.txt": "b\n"})
    git(repo, "checkout", "-q", "main")
    # -x makes the picked commits differ from the originals even within the same second
    git(repo, "cherry-pick", "-x", a, b)
    picked = git(repo, "rev-list", "--reverse", "HEAD~2..HEAD").split()
    assert _links(genesis_env, "STORY-13") == [a, b, *picked]
    assert _context("STORY-13")["files"] == [{"path": "a13.txt", "change": "added"},
                                             {"path": "b13.txt", "change": "added"}]


def test_revert_nets_the_file_away(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "STORY-14: add tmp", {"tmp.txt": "t\n"})
    git(repo, "revert", "--no-edit", "HEAD")
    ctx = _context("STORY-14")
    assert [c["subject"] for c in ctx["commits"]] == [
        "STORY-14: add tmp", 'Revert "STORY-14: add tmp"']
    assert ctx["files"] == []


def test_merge_keeps_branch_links(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    git(repo, "checkout", "-q", "-b", "feature")
    f = commit_files(repo, "STORY-15: feature work", {"f.txt": "f\n"})
    git(repo, "checkout", "-q", "main")
    commit_files(repo, "main moves on", {"m.txt": "m\n"})
    git(repo, "merge", "-q", "--no-edit", "--no-ff", "feature", "-m", "Merge STORY-15 feature")
    assert _links(genesis_env, "STORY-15") == [f]
    # a merge commit is not bound by the hook nor by a rebuild
    res = runner.invoke(app, ["story", "rebuild", "--json"])
    assert json.loads(res.output)["links_added"] == 0
    assert _links(genesis_env, "STORY-15") == [f]


def test_hook_functions_skip_rebase_and_merges(repo: Path, genesis_env: Path) -> None:
    r = find_repo(repo)
    config = load_config(repo)

    def never() -> sqlite3.Connection:
        raise AssertionError("the store must not be opened")

    (r.git_dir / "rebase-merge").mkdir()
    try:
        assert binding.post_commit(r, config, never) is None
        assert rewrite.post_rewrite(r, config, "amend", [("a" * 40, "b" * 40)], never) is None
    finally:
        (r.git_dir / "rebase-merge").rmdir()
    assert rewrite.post_rewrite(r, config, "rebase", [], never) is None
    assert rewrite.parse_rewrites("x\n" + "a" * 40 + " " + "b" * 40 + " extra\n") == [
        ("a" * 40, "b" * 40)]


def test_blobs_are_indexed_in_the_background_by_default(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    write(repo, "bg.py", "def background_indexing():\n    return 42\n")
    git(repo, "add", "bg.py")
    proc = subprocess.run(["git", "commit", "-q", "-m", "STORY-16: in the background"], cwd=repo,
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert len(_links(genesis_env, "STORY-16")) == 1  # bound before the commit returned
    blob = git(repo, "rev-parse", "HEAD:bg.py").strip()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if _q(genesis_env, "SELECT status FROM rag_blob_cache WHERE blob_sha=?", blob):
            break
        time.sleep(0.1)
    assert _q(genesis_env, "SELECT status FROM rag_blob_cache WHERE blob_sha=?", blob) == [
        ("ready",)]
    assert not (genesis_env / "hooks.log").exists()


def test_indexing_off(repo: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _setup(repo, genesis_env)
    monkeypatch.setenv("GENESIS_HOOKS_INDEX", "off")
    commit_files(repo, "STORY-17: not indexed", {"off.py": "X = 1\n"})
    assert hookrun.main(["post-commit"]) == 0
    assert len(_links(genesis_env, "STORY-17")) == 1
    blob = git(repo, "rev-parse", "HEAD:off.py").strip()
    assert _q(genesis_env, "SELECT COUNT(*) FROM rag_blob_cache WHERE blob_sha=?", blob) == [(0,)]
