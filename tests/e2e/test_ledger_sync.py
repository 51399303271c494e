"""The shared ledger through real remotes: a bare repository reached with ``file://``,
clones with their own stores and installed hooks, real commits and pushes."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R

from clones import PEOPLE, clone, commit, comparable, context, env_of, g, gen, make_remote
from helpers import git

pytestmark = pytest.mark.slow


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit on main, with sharing turned on."""
    return make_remote(tmp_path)


def remote_objects(bare: Path) -> bytes:
    """Every object the remote holds (loose or packed), read with git cat-file."""
    out = git(bare, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    assert out.split(), "the remote has no objects"
    return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=bare,
                          capture_output=True, check=True).stdout


def test_round_trip_author_teammate_and_back(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start", "--doc", "docs/req/orders.md")
    gen(ana, "session", "note", "discount_code is nullable; 旧订单保持 NULL", "--role", "decision")
    gen(ana, "session", "note", "totals must match the items", "--role", "risk",
        "--path", "app/orders.py")
    sha = commit(ana, "app/orders.py", "def total(items, code=None):\n    return sum(items)\n",
                 "STORY-12: add a discount code")
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=ana, text=True,
                          capture_output=True, env=env_of())
    assert push.returncode == 0, push.stderr
    # the pre-push hook pushed the ledger along
    assert git(remote, "rev-parse", "--verify", "-q", R.LEDGER_REF).strip()
    before = context(ana)
    assert before["commits"][0]["sha"] == sha
    assert all(a["shared"] for items in before["artifacts"].values() for a in items)

    bo = clone(remote, tmp_path, "bo")  # `genesis init` pulled the shared ledger
    after = context(bo)
    assert comparable(after) == comparable(before)
    assert [a["summary"] for a in after["artifacts"]["decision"]] == [
        "discount_code is nullable; 旧订单保持 NULL"]
    assert after["artifacts"]["decision"][0]["created_by"] == "Ana Analyst <ana@example.com>"
    text = gen(bo, "story", "context", "STORY-12").stdout
    assert "— Ana Analyst, " in text

    gen(bo, "session", "start")
    gen(bo, "session", "note", "old mobile clients ignore unknown fields", "--role", "risk")
    commit(bo, "app/api.py", "ROUTES = []\n", "STORY-12: expose the code in the API")
    res = json.loads(gen(bo, "sync", "--json").stdout)
    assert res["remote"] == "origin" and res["pushed"] >= 3
    assert {"remote", "pulled", "pushed", "stories"} <= set(res)

    res = json.loads(gen(ana, "sync", "--json").stdout)
    assert res["pulled"] >= 3 and "STORY-12" in res["stories"]
    both = context(ana)
    risks = {a["summary"]: a["created_by"] for a in both["artifacts"]["risk"]}
    assert risks == {"totals must match the items": "Ana Analyst <ana@example.com>",
                     "old mobile clients ignore unknown fields": "Bo Builder <bo@example.com>"}
    assert len(both["commits"]) == 2
    assert {f["path"] for f in both["files"]} == {"app/orders.py", "app/api.py"}
    json.loads(gen(bo, "sync", "--json").stdout)
    assert comparable(context(bo)) == comparable(context(ana))


def in_process_sync(path: Path) -> dict:
    from genesis_git.app.facade import Genesis

    with Genesis(path) as gx:
        return gx.stories.sync(warn=lambda _m: None)


def in_process_context(path: Path, story: str = "STORY-12") -> dict:
    from genesis_git.app.facade import Genesis

    with Genesis(path) as gx:
        from genesis_git.stories.context import build_context

        return comparable(build_context(gx.workspace.caught_up().conn, story))


def test_three_clones_concurrent_notes_in_every_sync_order(
        remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    start = tmp_path / "start"
    start.mkdir()
    bare = start / "remote.git"
    os.rename(remote, bare)
    clones = {who: clone(bare, start, who) for who in PEOPLE}
    gen(clones["ana"], "story", "set", "STORY-12", "--title", "Discount codes")
    gen(clones["ana"], "sync")
    for c in clones.values():
        gen(c, "sync")
    for who, c in clones.items():  # every clone writes without syncing
        gen(c, "session", "start")
        for n in range(2):
            gen(c, "session", "note", f"{who} note {n} 订单", "--role", "note")
        commit(c, f"{who}.txt", f"{who}\n", f"STORY-12: work of {who}")
        # commit times are whole seconds: clones that bind commits of the same second
        # order them by their own binding order, so each clone commits in its own second
        time.sleep(1.05)
    gen(clones["cy"], "story", "set", "STORY-12", "--status", "review")
    for var in ("GENESIS_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(var, raising=False)
    outcomes = []
    for order in itertools.permutations(PEOPLE):
        run = tmp_path / ("run-" + "-".join(order))
        subprocess.run(["cp", "-a", str(start), str(run)], check=True)
        for who in PEOPLE:
            git(run / who, "remote", "set-url", "origin", f"file://{run / 'remote.git'}")
        for who in (*order, order[0], order[1]):  # then the first two hear of the last
            in_process_sync(run / who)
        ctxs = [in_process_context(run / who) for who in PEOPLE]
        assert ctxs[0] == ctxs[1] == ctxs[2], order
        outcomes.append(ctxs[0])
    assert all(o == outcomes[0] for o in outcomes)
    final = outcomes[0]
    notes = sorted(a["summary"] for a in final["artifacts"]["note"])
    assert notes == sorted(f"{w} note {n} 订单" for w in PEOPLE for n in range(2))
    assert final["story"]["status"] == "review"
    assert final["story"]["title"] == "Discount codes"
    assert len(final["commits"]) == 3
    assert {f["path"] for f in final["files"]} == {"ana.txt", "bo.txt", "cy.txt"}


def test_two_syncs_at_once_in_one_clone(remote: Path, tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(bo, "story", "set", "STORY-7", "--title", "from bo")
    gen(bo, "sync")  # the remote is ahead of ana
    for n in range(3):
        gen(ana, "story", "set", f"STORY-{n + 20}", "--title", f"ana {n}")
    procs = [subprocess.Popen([sys.executable, "-m", "genesis_git", "sync", "--json"], cwd=ana,
                              env=env_of(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    results = [json.loads(out) for out, _ in outs]
    assert sum(r["pushed"] for r in results) == 3  # three stories created, pushed once
    assert all(r["total_stories"] == 4 for r in results)
    on_remote = {r.story_id for r in G.read_records(remote, R.LEDGER_REF)}
    assert on_remote == {"STORY-7", "STORY-20", "STORY-21", "STORY-22"}
    gen(bo, "sync")
    listed = json.loads(gen(bo, "story", "list", "--json").stdout)
    assert sorted(s["story_id"] for s in listed["stories"]) == [
        "STORY-20", "STORY-21", "STORY-22", "STORY-7"]


def test_squash_merge_on_the_server_keeps_notes_and_links_the_squash(
        remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    g(ana, "switch", "-q", "-c", "feature")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "codes expire after 30 days", "--role", "decision")
    first = commit(ana, "app/codes.py", "CODES = {}\n", "STORY-12: discount codes")
    second = commit(ana, "app/codes.py", "CODES = {'X': 1}\n", "STORY-12: a first code")
    push = subprocess.run(["git", "push", "-q", "-u", "origin", "feature"], cwd=ana, text=True,
                          capture_output=True, env=env_of())
    assert push.returncode == 0, push.stderr
    # the hosting service squashes the branch into one commit on main and deletes the branch
    srv = tmp_path / "server-side"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(srv))
    git(srv, "merge", "-q", "--squash", "origin/feature")
    later = f"@{int(time.time()) + 60} +0000"  # the server squashes after the branch's commits
    git(srv, "commit", "-q", "-m", "STORY-12: discount codes (#1)\n\n* STORY-12: a first code",
        env=dict(os.environ, GIT_COMMITTER_DATE=later, GIT_AUTHOR_DATE=later))
    squash = git(srv, "rev-parse", "HEAD").strip()
    git(srv, "push", "-q", "origin", "main", ":feature")
    # ana goes back to main and pulls; the squash reached her through git only
    g(ana, "switch", "-q", "main")
    g(ana, "pull", "-q", "--ff-only")
    assert g(ana, "rev-parse", "HEAD").strip() == squash
    res = json.loads(gen(ana, "sync", "--json").stdout)
    assert "STORY-12" in res["stories"]
    ctx = context(ana)
    assert [c["sha"] for c in ctx["commits"]] == [first, second, squash]
    assert [a["summary"] for a in ctx["artifacts"]["decision"]] == ["codes expire after 30 days"]
    # a teammate who clones after the squash gets the same story
    bo = clone(remote, tmp_path, "bo")
    assert comparable(context(bo)) == comparable(ctx)


def test_a_remote_that_refuses_the_ledger_does_not_fail_the_push(remote: Path,
                                                                  tmp_path: Path) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/genesis/*)\n"
                    "    echo \"refs/genesis is not allowed here\" >&2; exit 1 ;;\n  esac\n"
                    "done\nexit 0\n")
    hook.chmod(0o755)
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "a risk nobody may see yet", "--role", "risk")
    head = commit(ana, "app/x.py", "X = 1\n", "STORY-12: something")
    push = subprocess.run(["git", "push", "origin", "main"], cwd=ana, text=True,
                          capture_output=True, env=env_of())
    assert push.returncode == 0, push.stderr
    assert git(remote, "rev-parse", "main").strip() == head
    assert git(remote, "for-each-ref", "refs/genesis/") == ""
    warnings = [ln for ln in push.stderr.splitlines() if ln.startswith("genesis:")]
    assert len(warnings) == 1 and "origin refused the ledger" in warnings[0]
    assert "Traceback" not in push.stderr
    res = gen(ana, "sync", "--json", check=False)
    data = json.loads(res.stdout)
    assert res.returncode == 5
    assert data["pushed"] == 0 and "origin refused the ledger" in data["error"]
    # nothing is lost: the records wait in the local ledger
    assert {r.kind for r in G.read_records(ana, R.LEDGER_REF)} >= {"artifact.added",
                                                                   "note.written"}


def test_private_notes_never_reach_the_remote(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "shared decision 共享", "--role", "decision")
    out = gen(ana, "session", "note", "secret 秘密 pricing idea", "--role", "analysis",
              "--private").stdout
    assert "(private)" in out
    commit(ana, "app/y.py", "Y = 1\n", "STORY-12: pricing")
    git(ana, "push", "-q", "origin", "main", env=env_of())
    gen(ana, "sync")
    objects = remote_objects(remote)
    assert "shared decision 共享".encode() in objects
    assert "秘密".encode() not in objects and b"secret" not in objects
    mine = context(ana)
    assert mine["artifacts"]["analysis"][0]["private"] is True
    assert mine["artifacts"]["analysis"][0]["shared"] is False
    assert mine["artifacts"]["decision"][0]["shared"] is True
    assert "secret 秘密 pricing idea — Ana Analyst" in gen(ana, "story", "context",
                                                          "STORY-12").stdout
    bo = clone(remote, tmp_path, "bo")
    assert "analysis" not in context(bo)["artifacts"]


def test_malformed_records_and_foreign_refs_are_one_warning_each(remote: Path,
                                                                 tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "good")
    gen(ana, "sync")
    # someone pushes a broken line next to good records
    tip = git(ana, "rev-parse", R.LEDGER_REF).strip()
    files = G.tree_files(ana, tip)
    assert files is not None
    path = next(p for p in files if p.startswith("log/"))  # the one file written
    good = G.read_blobs(ana, [files[path]])[files[path]]
    bad = G.write_commit(ana, tip, {path: good + b"{not json\n",
                                    "stories/STORY-13.jsonl": b"\xff\xfe garbage\n"},
                         [tip], "broken")
    git(ana, "push", "-q", "--no-verify", "origin", f"{bad}:{R.LEDGER_REF}")
    bo = clone(remote, tmp_path, "bo", init=False)
    data = json.loads(gen(bo, "init", "--json").stdout)  # pulls the shared ledger
    assert data["sync"]["total_stories"] == 1
    assert len(data["warnings"]) == 1
    assert "skipped 2 malformed ledger records" in data["warnings"][0]
    assert context(bo)["story"]["title"] == "good"
    # a ref that is not a ledger at all: one warning, the rest goes on
    git(bo, "push", "-q", "--no-verify", "origin", f"HEAD:{R.LEDGER_REF}", "-f")
    res = gen(ana, "sync", "--json", check=False)
    assert res.returncode == 5 and "Traceback" not in res.stderr
    data = json.loads(res.stdout)
    assert "not a genesis ledger" in data["error"] and "genesis ledger repair" in data["error"]
    assert context(ana)["story"]["title"] == "good"


def test_plain_git_fetch_brings_the_ledger_and_the_next_command_sees_it(
        remote: Path, tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    assert "+refs/genesis/*:refs/genesis/remotes/origin/*" in g(
        ana, "config", "--get-all", "remote.origin.fetch")
    gen(bo, "story", "set", "STORY-12", "--title", "from bo", "--status", "review")
    gen(bo, "sync")
    g(ana, "fetch", "-q")
    ctx = context(ana)
    assert (ctx["story"]["title"], ctx["story"]["status"]) == ("from bo", "review")
    # uninstalling the hooks takes the refspec away again
    gen(ana, "hooks", "uninstall")
    assert "refs/genesis" not in g(ana, "config", "--get-all", "remote.origin.fetch")


def test_no_remote_a_remote_without_ledger_and_sharing_off(tmp_path: Path) -> None:
    solo = tmp_path / "solo"
    solo.mkdir()
    git(solo, "init", "-q", "-b", "main")
    git(solo, "config", "user.name", "Solo")
    git(solo, "config", "user.email", "solo@example.com")
    commit(solo, "a.txt", "a\n", "initial")
    gen(solo, "init")
    gen(solo, "story", "set", "STORY-1", "--title", "alone")
    data = json.loads(gen(solo, "sync", "--json").stdout)
    assert (data["remote"], data["pulled"], data["pushed"]) == (None, 0, 0)
    assert "no remote" in data["notes"][0]
    assert G.resolve(solo, R.LEDGER_REF)  # the records are in the local ledger all the same
    bare = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(solo, "remote", "add", "origin", f"file://{bare}")
    data = json.loads(gen(solo, "sync", "--json").stdout)
    assert data["remote"] == "origin" and data["pushed"] == 0
    assert any("has no ledger yet" in n for n in data["notes"])
    assert any("sharing is off" in n for n in data["notes"])
    assert git(bare, "for-each-ref") == ""
    assert gen(solo, "sync", "nowhere", check=False).returncode == 1
    out = gen(solo, "init", "--share").stdout
    assert "set now: commit .genesis.toml" in out
    assert git(bare, "rev-parse", R.LEDGER_REF).strip() == git(solo, "rev-parse",
                                                                R.LEDGER_REF).strip()
    text = gen(solo, "sync").stdout
    assert text.startswith("origin: pulled 0 records, pushed 0; 1 stories")
