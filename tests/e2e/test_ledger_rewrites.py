"""Two clones of a real bare remote (``file://``), each with its hooks and its own store:
after an amend, a rebase or a retraction in one of them and a `genesis sync` in both,
`genesis story context --json` gives the same stories in both, in any order of syncs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R

from clones import clone, commit, comparable, env_of, g, gen, make_remote
from helpers import git

pytestmark = pytest.mark.slow


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit on main, with sharing turned on."""
    return make_remote(tmp_path)


def story(clone_: Path, story_id: str) -> object:
    """``story context --json`` without what is local to the clone, or the error line."""
    proc = gen(clone_, "story", "context", story_id, "--json", check=False)
    if proc.returncode != 0:
        return (proc.returncode, proc.stderr.strip())
    return comparable(json.loads(proc.stdout))


def listed(clone_: Path) -> list[dict]:
    return json.loads(gen(clone_, "story", "list", "--json").stdout)["stories"]


def same(a: Path, b: Path, *stories: str) -> dict[str, object]:
    """Both clones agree on these stories and on the list; the stories as ``a`` sees them."""
    seen = {s: story(a, s) for s in stories}
    assert {s: story(b, s) for s in stories} == seen
    assert listed(b) == listed(a)
    return seen


def notes(ctx: object) -> list[str]:
    assert isinstance(ctx, dict), ctx
    return sorted(a["summary"] for role in ("decision", "risk", "note")
                  for a in ctx["artifacts"].get(role, []))


def test_amend_to_another_story_then_to_none(remote: Path, tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "codes are case-insensitive", "--role", "decision")
    gen(ana, "session", "note", "old clients drop the field", "--role", "risk")
    commit(ana, "app/codes.py", "CODES = {}\n", "STORY-12: discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    both = same(ana, bo, "STORY-12")
    assert notes(both["STORY-12"]) == ["codes are case-insensitive", "old clients drop the field"]

    # (a) the message now names STORY-13: the notes move there, STORY-12 is left with nothing
    g(ana, "commit", "-q", "--amend", "-m", "STORY-13: discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    both = same(ana, bo, "STORY-12", "STORY-13")
    assert both["STORY-12"][0] == 1 and "unknown story 'STORY-12'" in both["STORY-12"][1]
    assert notes(both["STORY-13"]) == ["codes are case-insensitive",
                                       "old clients drop the field"]
    assert [s["story_id"] for s in listed(bo)] == ["STORY-13"]

    # (b) no story id any more: the notes go back to pending, nobody sees them in a story
    g(ana, "commit", "-q", "--amend", "-m", "discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    both = same(ana, bo, "STORY-12", "STORY-13")
    assert all(isinstance(v, tuple) and v[0] == 1 for v in both.values())
    pending = json.loads(gen(ana, "session", "artifacts", "--json").stdout)
    assert pending["unbound"] == 2
    # and a later story commit binds them again, everywhere
    commit(ana, "app/api.py", "ROUTES = []\n", "STORY-12: codes in the API")
    gen(ana, "sync")
    gen(bo, "sync")
    both = same(ana, bo, "STORY-12")
    assert notes(both["STORY-12"]) == ["codes are case-insensitive", "old clients drop the field"]
    assert both["STORY-12"]["story"]["title"] == "codes in the API"


def test_amend_that_drops_the_id_keeps_a_draft_with_its_requirement(remote: Path,
                                                                      tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(ana, "session", "start", "--doc", "docs/req/orders.md")
    gen(ana, "session", "note", "codes expire after 30 days", "--role", "decision")
    commit(ana, "app/codes.py", "CODES = {}\n", "STORY-12: discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    assert story(bo, "STORY-12")["story"]["status"] == "in_progress"
    g(ana, "commit", "-q", "--amend", "-m", "discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    ctx = same(ana, bo, "STORY-12")["STORY-12"]
    assert ctx["story"]["status"] == "draft"
    assert notes(ctx) == [] and ctx["commits"] == [] and ctx["files"] == []
    assert [a["path"] for a in ctx["artifacts"]["requirement"]] == ["docs/req/orders.md"]


def test_an_interactive_rebase_of_several_story_commits(remote: Path, tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(ana, "session", "start")
    for n, sid in enumerate(("STORY-30", "STORY-31", "STORY-30")):
        gen(ana, "session", "note", f"note {n} of {sid}", "--role", "note")
        commit(ana, f"app/p{n}.py", f"P = {n}\n", f"{sid}: part {n}")
    gen(ana, "sync")
    gen(bo, "sync")
    before = same(ana, bo, "STORY-30", "STORY-31")
    # reword the middle commit to STORY-32; every commit after the base is rewritten
    env = dict(env_of(), GIT_SEQUENCE_EDITOR="sed -i -e '2s/^pick/reword/'",
               GIT_EDITOR="sed -i -e '1s/STORY-31/STORY-32/'")
    proc = subprocess.run(["git", "rebase", "-q", "-i", "--force-rebase", "HEAD~3"], cwd=ana,
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    gen(ana, "sync")
    gen(bo, "sync")
    after = same(ana, bo, "STORY-30", "STORY-31", "STORY-32")
    assert after["STORY-31"][0] == 1
    assert notes(after["STORY-32"]) == ["note 1 of STORY-31"]
    assert notes(after["STORY-30"]) == notes(before["STORY-30"])
    shas = git(ana, "rev-list", "--reverse", "HEAD~3..HEAD").split()
    assert [c["sha"] for c in after["STORY-30"]["commits"]] == [shas[0], shas[2]]
    assert after["STORY-30"]["story"]["baseline_commit_sha"] == git(
        ana, "rev-parse", "HEAD~3").strip()


def test_syncs_in_either_order_end_equal(remote: Path, tmp_path: Path) -> None:
    start = tmp_path / "start"
    start.mkdir()
    bare = start / "remote.git"
    os.rename(remote, bare)
    ana, bo = clone(bare, start, "ana"), clone(bare, start, "bo")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "ana's decision", "--role", "decision")
    commit(ana, "app/a.py", "A = 1\n", "STORY-12: ana's part")
    gen(ana, "session", "note", "ana's risk", "--role", "risk")
    commit(ana, "app/b.py", "B = 1\n", "STORY-14: ana's other part")
    gen(ana, "sync")
    gen(bo, "sync")
    # meanwhile, without syncing: ana rewords her STORY-12 commit away, bo works on STORY-12
    env = dict(env_of(), GIT_SEQUENCE_EDITOR="sed -i -e '1s/^pick/reword/'",
               GIT_EDITOR="sed -i -e '1s/STORY-12/STORY-13/'")
    proc = subprocess.run(["git", "rebase", "-q", "-i", "HEAD~2"], cwd=ana, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    gen(bo, "session", "start")
    gen(bo, "session", "note", "bo's note", "--role", "note")
    commit(bo, "app/c.py", "C = 1\n", "STORY-12: bo's part")
    gen(bo, "story", "set", "STORY-14", "--status", "review")
    outcomes = []
    for order in (("ana", "bo", "ana"), ("bo", "ana", "bo")):
        run = tmp_path / "-".join(order)
        subprocess.run(["cp", "-a", str(start), str(run)], check=True)
        for who in ("ana", "bo"):
            git(run / who, "remote", "set-url", "origin", f"file://{run / 'remote.git'}")
        for who in order:
            gen(run / who, "sync")
        outcomes.append(same(run / "ana", run / "bo", "STORY-12", "STORY-13", "STORY-14"))
    assert outcomes[0] == outcomes[1]
    final = outcomes[0]
    # bo's commit keeps STORY-12, with its title; ana's note went to STORY-13 with her commit
    assert notes(final["STORY-12"]) == ["bo's note"]
    assert final["STORY-12"]["story"]["title"] == "ana's part"
    assert [c["subject"] for c in final["STORY-12"]["commits"]] == ["STORY-12: bo's part"]
    assert notes(final["STORY-13"]) == ["ana's decision"]
    assert final["STORY-14"]["story"]["status"] == "review"
    assert notes(final["STORY-14"]) == ["ana's risk"]


def test_a_retracted_note_leaves_every_clone_and_a_private_one_stays_here(
        remote: Path, tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(ana, "session", "start")
    wrong = json.loads(gen(ana, "session", "note", "codes stack", "--role", "decision",
                           "--json").stdout)
    gen(ana, "session", "note", "codes never stack", "--role", "decision")
    secret = json.loads(gen(ana, "session", "note", "margin is thin 利润", "--role", "risk",
                            "--private", "--json").stdout)
    commit(ana, "app/codes.py", "CODES = {}\n", "STORY-12: discount codes")
    gen(ana, "sync")
    gen(bo, "sync")
    pending = json.loads(gen(ana, "session", "note", "not bound yet", "--json").stdout)
    assert notes(story(bo, "STORY-12")) == ["codes never stack", "codes stack"]
    out = gen(ana, "session", "retract", f"#{wrong['id']}").stdout
    assert out == f"retracted #{wrong['id']} [decision] codes stack — it left STORY-12\n"
    out = gen(ana, "session", "retract", str(secret["id"])).stdout
    assert out.endswith("— it left STORY-12; private, so the retraction stays here\n")
    res = json.loads(gen(ana, "session", "retract", str(pending["id"]), "--json").stdout)
    assert (res["retracted"], res["stories"], res["summary"]) == (True, [], "not bound yet")
    gen(ana, "sync")
    gen(bo, "sync")
    ctx = same(ana, bo, "STORY-12")["STORY-12"]
    assert notes(ctx) == ["codes never stack"]
    # the private note's retraction never left ana's clone
    shared = [r for r in G.read_records(bo) if r.kind == "note.retracted"]
    assert sorted(r.story_id or "-" for r in shared) == ["-", "-", "STORY-12"]
    assert secret["summary"] not in git(bo, "log", "-p", R.LEDGER_REF)
    # errors: one line, a documented exit code
    again = gen(ana, "session", "retract", f"#{wrong['id']}", check=False)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr == (f"genesis: error: no note #{wrong['id']} in this clone (see `genesis "
                            "session artifacts`, with --session S for an ended session; a "
                            "retracted note is gone from that list)\n")
    kept = comparable(json.loads(gen(bo, "story", "context", "STORY-12", "--json").stdout))
    decisions = json.loads(gen(bo, "story", "context", "STORY-12", "--json").stdout)[
        "artifacts"]["decision"]
    theirs = decisions[0]["doc_id"]
    other = gen(bo, "session", "retract", theirs, check=False)
    assert other.returncode == 1
    assert other.stderr == (f"genesis: error: note {theirs} was written in another clone "
                            "(only its author can retract it)\n")
    assert comparable(json.loads(gen(bo, "story", "context", "STORY-12", "--json").stdout)) == kept
    bad = gen(ana, "session", "retract", "the wrong one", check=False)
    assert bad.returncode == 2 and bad.stderr.startswith(
        "genesis: error: 'the wrong one' is not a note id")
