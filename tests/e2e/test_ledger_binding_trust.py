"""Whose notes bind to which commit, on real clones of a real bare remote with the hooks
installed: a pending note binds only to a commit made in its own clone; merges and words
that only look like story ids bind nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clones import clone, commit, context, env_of, g, gen, make_remote
from helpers import git, write

pytestmark = pytest.mark.slow

NOTE = "bo: the API keeps the old field for a release"


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return make_remote(tmp_path)


def push(clone_: Path, *args: str) -> None:
    proc = subprocess.run(["git", "push", "-q", "origin", *args], cwd=clone_, text=True,
                          capture_output=True, env=env_of())
    assert proc.returncode == 0, proc.stderr


def summaries(ctx: dict) -> list[str]:
    return [a["summary"] for items in ctx["artifacts"].values() for a in items]


def stories(clone_: Path) -> list[str]:
    return sorted(s["story_id"] for s in json.loads(gen(clone_, "story", "list",
                                                        "--json").stdout)["stories"])


def test_a_pending_note_never_binds_to_a_pulled_commit(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    bo = clone(remote, tmp_path, "bo")
    gen(bo, "session", "start", "--doc", "docs/req/orders.md")
    gen(bo, "session", "note", NOTE, "--role", "decision")
    # ana has no session: her commit carries no Genesis-Session trailer
    commit(ana, "app/orders.py", "def total(items):\n    return sum(items) or 0\n",
           "STORY-1: totals never None")
    push(ana, "main")

    g(bo, "pull", "-q", "--no-rebase", "origin", "main")
    for args in (("sync",), ("init",), ("story", "rebuild")):
        gen(bo, *args)
        ctx = context(bo, "STORY-1")
        assert NOTE not in summaries(ctx), args
        assert "requirement" not in ctx["artifacts"], args  # bo's --doc stays bo's
    gen(bo, "sync")
    gen(ana, "sync")
    assert NOTE not in summaries(context(ana, "STORY-1"))

    # bo's own next story commit takes the note (its post-commit finds no missed commit)
    commit(bo, "app/api.py", "ROUTES = ['orders']\n", "STORY-2: expose totals")
    assert NOTE in summaries(context(bo, "STORY-2"))
    assert NOTE not in summaries(context(bo, "STORY-1"))
    assert [a["path"] for a in context(bo, "STORY-2")["artifacts"]["requirement"]] == [
        "docs/req/orders.md"]


def test_a_rebase_onto_upstream_brings_commits_that_bind_no_note(remote: Path,
                                                                  tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    bo = clone(remote, tmp_path, "bo")
    commit(bo, "app/wip.py", "W = 1\n", "wip: no story yet")
    gen(bo, "session", "start")
    gen(bo, "session", "note", NOTE, "--role", "decision")
    commit(ana, "app/orders.py", "def total(items):\n    return sum(items) or 0\n",
           "STORY-1: totals never None")
    push(ana, "main")
    g(bo, "pull", "-q", "--rebase", "origin", "main")  # bo's wip is replayed on ana's
    assert g(bo, "log", "-1", "--format=%s", "HEAD~1").strip() == "STORY-1: totals never None"
    gen(bo, "sync")
    gen(bo, "story", "rebuild")
    assert NOTE not in summaries(context(bo, "STORY-1"))
    commit(bo, "app/api.py", "ROUTES = []\n", "STORY-2: mine")
    assert NOTE in summaries(context(bo, "STORY-2"))
    assert NOTE not in summaries(context(bo, "STORY-1"))


def test_a_squash_made_on_the_server_binds_no_pending_note(remote: Path,
                                                           tmp_path: Path) -> None:
    bo = clone(remote, tmp_path, "bo")
    gen(bo, "session", "start")
    sid = json.loads(gen(bo, "session", "status", "--json").stdout)["active"]["id"]
    gen(bo, "session", "note", NOTE, "--role", "decision")
    # the hosting service squashes bo's branch: the message keeps bo's session trailer
    server = clone(remote, tmp_path, "cy", init=False)
    write(server, "app/squash.py", "X = 1\n")
    git(server, "add", "-A")
    git(server, "commit", "-q", "-m", "STORY-3: squashed (#5)",
        "-m", f"* STORY-3: part one\n\nGenesis-Session: {sid}")
    git(server, "push", "-q", "origin", "main")

    g(bo, "pull", "-q", "--rebase", "origin", "main")
    gen(bo, "sync")
    gen(bo, "story", "rebuild")
    ctx = context(bo, "STORY-3")
    assert [f["path"] for f in ctx["files"]] == ["app/squash.py"]  # the commit itself binds
    assert NOTE not in summaries(ctx)
    commit(bo, "app/api.py", "ROUTES = []\n", "STORY-4: mine")
    assert NOTE in summaries(context(bo, "STORY-4"))


def test_rebuild_still_recovers_a_note_of_a_commit_made_here(remote: Path,
                                                              tmp_path: Path) -> None:
    """A commit made in this clone while the hooks were off still takes its notes."""
    bo = clone(remote, tmp_path, "bo")
    gen(bo, "session", "start")
    gen(bo, "session", "note", NOTE, "--role", "decision")
    write(bo, "app/api.py", "ROUTES = []\n")
    g(bo, "add", "-A")
    subprocess.run(["git", "commit", "-q", "-m", "STORY-5: hooks were off"], cwd=bo,
                   check=True, env={**env_of(), "GENESIS_HOOKS": "0"})
    assert "STORY-5" not in stories(bo)
    gen(bo, "story", "rebuild")
    assert NOTE in summaries(context(bo, "STORY-5"))


def test_a_merge_named_for_a_story_binds_nothing_and_says_so(remote: Path,
                                                             tmp_path: Path) -> None:
    bo = clone(remote, tmp_path, "bo")
    gen(bo, "session", "start")
    gen(bo, "session", "note", NOTE, "--role", "decision")
    g(bo, "checkout", "-q", "-b", "feature")
    write(bo, "app/feature.py", "F = 1\n")
    g(bo, "add", "-A")
    g(bo, "commit", "-q", "-m", "wip without an id")
    g(bo, "checkout", "-q", "main")
    commit(bo, "app/other.py", "O = 1\n", "tidy")
    g(bo, "merge", "-q", "--no-ff", "--no-commit", "feature")
    proc = subprocess.run(["git", "commit", "-q", "-m", "Merge STORY-104 into main"], cwd=bo,
                          text=True, capture_output=True, env=env_of())
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("a merge binds nothing: STORY-104 not bound") == 1, proc.stderr
    assert "STORY-104" not in stories(bo)
    commit(bo, "app/api.py", "ROUTES = []\n", "STORY-104: the real work")
    assert NOTE in summaries(context(bo, "STORY-104"))


SUBJECTS = ("Added tests R12-10", "Follow up for PR-28119",
            "test(solvers): add regression test for GH-4886", "IEC61131-3 conformance",
            "EN50128-1 wording", "PY-2018.3 <me@DESKTOP Create vcs.xml",
            "upgrade UTF-8 handling")


def test_a_history_without_story_ids_proposes_nothing_and_rebuilds_no_story(
        remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana", init=False)
    for i, subject in enumerate(SUBJECTS):
        commit(ana, f"src/m{i}.py", f"X = {i}\n", subject)
    for branch in ("PR-1139", "ISSUE-624"):
        g(ana, "checkout", "-q", "-b", branch, "HEAD~1")
        commit(ana, f"src/{branch}.py", "Y = 1\n", "work on a branch")
        g(ana, "checkout", "-q", "main")
        g(ana, "merge", "-q", "--no-ff", "-m", f"Merge pull request #1306 from user/{branch}",
          branch)
    g(ana, "checkout", "-q", "-b", "last", "HEAD~1")
    commit(ana, "src/last.py", "Z = 1\n", "more work")
    g(ana, "checkout", "-q", "main")
    g(ana, "merge", "-q", "--no-ff", "-m", "Merge STORY-104 into main", "last")
    total = int(g(ana, "rev-list", "--count", "HEAD"))
    assert total == 1 + len(SUBJECTS) + 6
    out = json.loads(gen(ana, "init", "--json").stdout)
    assert out["story_prefixes"] == [] and out["commits_surveyed"] == total
    (ana / ".genesis.toml").unlink()
    lines = [ln for ln in gen(ana, "init").stdout.splitlines() if "story ids" in ln]
    assert lines == [f"story ids: none in the last {total} commits of git log; "
                     "nothing to propose"]
    res = json.loads(gen(ana, "story", "rebuild", "--json").stdout)
    assert res["created"] == [] and res["story_commits"] == 0
    assert stories(ana) == []

    # the same rule, once a team does use ids: what init proposes is what binds
    commit(ana, "src/a.py", "A = 1\n", "SHOP-1: checkout")
    commit(ana, "src/b.py", "B = 1\n", "[SHOP-2] refund, see GH-4886")
    out = json.loads(gen(ana, "init", "--json").stdout)
    assert out["story_prefixes"] == [{"prefix": "SHOP", "commits": 2}]
    res = json.loads(gen(ana, "story", "rebuild", "--json").stdout)
    assert sorted(res["created"]) == ["SHOP-1", "SHOP-2"]
    # a prefix with a digit binds once story.prefixes lists it
    write(ana, ".genesis.toml", '[story]\nprefixes = ["SHOP", "R12"]\n')
    res = json.loads(gen(ana, "story", "rebuild", "--json").stdout)
    assert res["created"] == ["R12-10"]


def test_dropped_commits_leave_the_net_files_and_unfetched_ones_are_not_dropped(
        remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    bo = clone(remote, tmp_path, "bo")
    kept = commit(ana, "app/a.py", "A = 1\n", "STORY-7: first part")
    push(ana, "main")
    dropped = commit(ana, "app/b.py", "B = 1\n", "STORY-7: a try, reset away")
    g(ana, "reset", "-q", "--hard", "HEAD~1")
    g(bo, "pull", "-q", "--no-rebase", "origin", "main")
    theirs = commit(bo, "app/c.py", "C = 1\n", "STORY-7: bo's part")
    push(bo, "main")
    gen(ana, "sync")  # the ledger comes, bo's commit itself is not fetched
    assert g(ana, "cat-file", "-t", theirs, check=False).strip() != "commit"

    ctx = context(ana, "STORY-7")
    assert [f["path"] for f in ctx["files"]] == ["app/a.py", "app/c.py"]
    text = gen(ana, "story", "context", "STORY-7").stdout
    assert "files (2, net):" in text
    line = {ln.split()[0]: ln for ln in text.splitlines() if ln.startswith("  ")
            and len(ln.split()) > 1}
    assert line[dropped[:10]].endswith("(unreachable: rewritten or dropped)")
    assert line[theirs[:10]].endswith("(not fetched here: `git fetch` brings it)")
    state = {c["sha"]: (c["reachable"], c["fetched"]) for c in ctx["commits"]}
    assert state == {kept: (True, True), dropped: (False, True), theirs: (False, False)}
    res = json.loads(gen(ana, "story", "rebuild", "--json").stdout)
    assert (res["unreachable"], res["not_fetched"]) == ([dropped], [theirs])
    res = json.loads(gen(ana, "story", "rebuild", "--prune", "--json").stdout)
    assert res["pruned"] == 1
    assert [c["sha"] for c in context(ana, "STORY-7")["commits"]] == [kept, theirs]

    g(ana, "pull", "-q", "--no-rebase", "origin", "main")
    assert all(c["reachable"] and c["fetched"] for c in context(ana, "STORY-7")["commits"])


def test_every_clone_gives_a_story_the_same_project_id(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    bo = clone(remote, tmp_path, "bo")
    g(bo, "remote", "remove", "origin")  # no origin: the folder name was the id before
    root = g(ana, "rev-list", "--max-parents=0", "HEAD").strip()
    commit(ana, "app/a.py", "A = 1\n", "STORY-8: from ana")
    commit(bo, "app/b.py", "B = 1\n", "STORY-9: from bo")
    gen(bo, "story", "set", "STORY-10", "--title", "made by hand")
    ids = {context(ana, "STORY-8")["story"]["project_id"],
           context(bo, "STORY-9")["story"]["project_id"],
           context(bo, "STORY-10")["story"]["project_id"]}
    assert ids == {f"git:{root[:12]}"}
    # another history is another project
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    write(other, "x.txt", "x\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "STORY-8: elsewhere")
    gen(other, "story", "rebuild")
    assert context(other, "STORY-8")["story"]["project_id"] not in ids | {"other"}
