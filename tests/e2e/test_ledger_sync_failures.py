"""The shared ledger when the remote is not what the clone thinks: deleted, moved to a new
host, refusing, missing, broken, slow or busy.  Real clones of a real bare remote with the
hooks installed, driven through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R

from clones import clone, commit, context, env_of, g, gen, make_remote
from helpers import git, hanging_ssh, survivors

pytestmark = pytest.mark.slow

REFUSE = ("#!/bin/sh\nwhile read old new ref; do\n  case $ref in refs/genesis/*)\n"
          "    echo \"refs/genesis is not allowed here\" >&2\n"
          "    echo \"ask the admins \x1b[31m[ops]\x1b[0m\" >&2; exit 1 ;;\n  esac\ndone\nexit 0\n")


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return make_remote(tmp_path)


def refuse_ledger(bare: Path) -> None:
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(REFUSE)
    hook.chmod(0o755)


def sync_json(clone_: Path, *args: str) -> tuple[int, dict, str]:
    proc = gen(clone_, "sync", "--json", *args, check=False)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def remote_ids(bare: Path) -> set[str]:
    return {r.id for r in G.read_records(bare, R.LEDGER_REF)}


# -- point 10: compare with what the remote has ----------------------------------------------

def test_a_deleted_remote_ledger_is_pushed_back(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "kept")
    code, first, _ = sync_json(ana)
    assert code == 0 and first["pushed"] >= 1
    mine = git(ana, "rev-parse", R.LEDGER_REF).strip()
    git(remote, "update-ref", "-d", R.LEDGER_REF)
    code, again, err = sync_json(ana)
    assert (code, again["error"]) == (0, None), err
    assert again["pushed"] == first["pushed"]
    assert git(remote, "rev-parse", R.LEDGER_REF).strip() == mine
    # and the remote-tracking copy says what the remote has again: nothing more to push
    code, third, _ = sync_json(ana)
    assert (code, third["pushed"], third["error"]) == (0, 0, None)


def test_a_new_host_gets_the_ledger_with_the_next_push(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "moved hosts", "--role", "decision")
    commit(ana, "app/x.py", "X = 1\n", "STORY-12: before the move")
    g(ana, "push", "-q", "origin", "main")
    assert git(remote, "rev-parse", R.LEDGER_REF).strip()
    fresh = tmp_path / "fresh.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(fresh))
    g(ana, "remote", "set-url", "origin", f"file://{fresh}")
    push = subprocess.run(["git", "push", "--all", "origin"], cwd=ana, text=True,
                          capture_output=True, env=env_of())
    assert push.returncode == 0, push.stderr
    assert "genesis:" not in push.stderr
    # the pre-push hook compared with the new host, not with the old host's copy
    assert git(fresh, "rev-parse", R.LEDGER_REF).strip() == git(ana, "rev-parse",
                                                                 R.LEDGER_REF).strip()
    assert remote_ids(fresh) == remote_ids(remote)
    bo = clone(fresh, tmp_path, "bo")
    assert context(bo)["artifacts"]["decision"][0]["summary"] == "moved hosts"


# -- point 11: a remote that refuses, a remote that is not there -----------------------------

def test_a_refusing_remote_fails_sync_with_its_own_reason(remote: Path, tmp_path: Path) -> None:
    refuse_ledger(remote)
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "refused")
    proc = gen(ana, "sync", check=False)
    assert proc.returncode == 5
    errors = proc.stderr.splitlines()
    assert errors[-1] == (
        "genesis: error: origin refused the ledger: pre-receive hook declined; "
        "refs/genesis is not allowed here; ask the admins \\033[31m[ops]\\033[0m "
        "(nothing is lost: the records wait in this clone)")
    assert "\x1b" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == "origin: pulled 0 records, pushed 0; 1 stories\n"
    code, data, err = sync_json(ana)
    assert code == 5 and data["pushed"] == 0
    assert data["error"].startswith("origin refused the ledger: pre-receive hook declined; "
                                    "refs/genesis is not allowed here")
    assert err.count("genesis: error:") == 1
    assert git(remote, "for-each-ref", "refs/genesis/") == ""
    # nothing to push is not an error: the same JSON with error null and exit 0
    os.remove(remote / "hooks" / "pre-receive")
    code, data, _ = sync_json(ana)
    assert (code, data["error"]) == (0, None) and data["pushed"] >= 1
    code, data, _ = sync_json(ana)
    assert (code, data["pushed"], data["error"]) == (0, 0, None)


def test_a_refusing_remote_is_one_warning_in_the_pre_push_hook(remote: Path,
                                                                tmp_path: Path) -> None:
    refuse_ledger(remote)
    ana = clone(remote, tmp_path, "ana")
    head = commit(ana, "app/x.py", "X = 1\n", "STORY-12: something")
    push = subprocess.run(["git", "push", "origin", "main"], cwd=ana, text=True,
                          capture_output=True, env=env_of())
    assert push.returncode == 0, push.stderr
    assert git(remote, "rev-parse", "main").strip() == head
    warnings = [ln for ln in push.stderr.splitlines() if ln.startswith("genesis:")]
    assert warnings == ["genesis: warning: the story ledger was not pushed (origin refused the "
                        "ledger: pre-receive hook declined; refs/genesis is not allowed here; "
                        "ask the admins \\033[31m[ops]\\033[0m); `genesis sync` retries"]


def test_a_missing_remote_is_one_clear_line(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gone = tmp_path / "gone.git"
    g(ana, "remote", "set-url", "origin", str(gone))
    proc = gen(ana, "sync", check=False)
    assert proc.returncode == 5
    assert proc.stderr.splitlines()[-1] == (
        f"genesis: error: cannot fetch the ledger from origin: '{gone}' does not appear to be "
        "a git repository (nothing is lost: the records wait in this clone)")
    assert "and the repository exists" not in proc.stderr
    code, data, _ = sync_json(ana)
    assert code == 5 and data["error"].startswith("cannot fetch the ledger from origin: ")


def test_a_broken_remote_ledger_is_one_error_and_each_warning_once(remote: Path,
                                                                   tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "before")
    gen(ana, "sync")
    # someone pushed a plain commit of the project over the ledger
    git(ana, "push", "-q", "--no-verify", "-f", "origin", f"main:{R.LEDGER_REF}")
    gen(ana, "story", "set", "STORY-12", "--title", "after")
    code, data, err = sync_json(ana)
    assert code == 5 and data["pushed"] == 0
    assert data["error"].startswith("origin's refs/genesis/ledger is broken (its commit ")
    assert "`genesis ledger repair`" in data["error"] and "sync again" not in err
    assert len(data["warnings"]) == len(set(data["warnings"]))
    assert all(err.count(w) <= 1 for w in data["warnings"])
    assert context(ana)["story"]["title"] == "after"
    # the broken copy stays behind when the remote cannot be read: never merged either
    g(ana, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    code, data, err = sync_json(ana)
    assert code == 5 and data["error"].startswith("cannot fetch the ledger from origin: ")
    assert "Traceback" not in err
    assert git(ana, "rev-parse", "main").strip() not in git(ana, "rev-list", R.LEDGER_REF)


# -- point 12: broken refs, doctor and repair, records kept apart from the refs -------------

def doctor(clone_: Path) -> list[dict]:
    proc = gen(clone_, "doctor", "--json", check=False)
    data = json.loads(proc.stdout)
    items = data["checks"] if isinstance(data, dict) else data
    return [c for c in items if c["name"] == "ledger refs"]


def test_a_deleted_local_ledger_ref_loses_no_record(remote: Path, tmp_path: Path) -> None:
    refuse_ledger(remote)
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "not pushed yet", "--role", "risk")
    commit(ana, "app/x.py", "X = 1\n", "STORY-12: waiting")
    assert sync_json(ana)[0] == 5  # the records sit in the local ref only
    mine = {r.id for r in G.read_records(ana, R.LEDGER_REF)}
    assert len(mine) >= 3
    git(ana, "update-ref", "-d", R.LEDGER_REF)
    os.remove(remote / "hooks" / "pre-receive")
    code, data, err = sync_json(ana)
    assert (code, data["error"]) == (0, None), err
    assert remote_ids(remote) == mine
    bo = clone(remote, tmp_path, "bo")
    assert [a["summary"] for a in context(bo)["artifacts"]["risk"]] == ["not pushed yet"]


def test_a_local_ledger_ref_moved_back_loses_no_record(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "pushed")
    gen(ana, "sync")
    refuse_ledger(remote)
    gen(ana, "story", "set", "STORY-12", "--title", "waiting", "--status", "review")
    assert sync_json(ana)[0] == 5
    mine = {r.id for r in G.read_records(ana, R.LEDGER_REF)}
    # the local ref is set back to what the remote has: the waiting records are not in it
    git(ana, "update-ref", R.LEDGER_REF, git(ana, "rev-parse", "refs/genesis/remotes/origin/"
                                                "ledger").strip())
    assert {r.id for r in G.read_records(ana, R.LEDGER_REF)} < mine
    os.remove(remote / "hooks" / "pre-receive")
    code, data, err = sync_json(ana)
    assert (code, data["error"]) == (0, None), err
    assert remote_ids(remote) == mine
    ctx = context(clone(remote, tmp_path, "bo"))
    assert (ctx["story"]["title"], ctx["story"]["status"]) == ("waiting", "review")


def test_doctor_and_repair_of_a_local_ref_on_a_foreign_commit(remote: Path,
                                                               tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "session", "start")
    gen(ana, "session", "note", "the decision", "--role", "decision")
    commit(ana, "app/x.py", "X = 1\n", "STORY-12: decided")
    gen(ana, "sync")
    gen(ana, "story", "set", "STORY-12", "--title", "local only")
    gen(ana, "sync", "--json")
    before = {r.id for r in G.read_records(ana, R.LEDGER_REF)}
    assert [c["status"] for c in doctor(ana)] == ["ok"]
    git(ana, "update-ref", R.LEDGER_REF, "HEAD")  # a foreign commit
    gen(ana, "story", "set", "STORY-12", "--status", "review")
    checks = doctor(ana)
    assert [c["status"] for c in checks] == ["error"]
    assert checks[0]["message"].startswith("refs/genesis/ledger is broken: its commit ")
    assert "genesis ledger repair" in checks[0]["fix"]
    proc = gen(ana, "sync", check=False)
    assert proc.returncode == 5 and "`genesis ledger repair`" in proc.stderr
    out = gen(ana, "ledger", "repair").stdout
    assert out.startswith("repaired refs/genesis/ledger (its commit ")
    after = {r.id for r in G.read_records(ana, R.LEDGER_REF)}
    assert before < after  # nothing lost, and the status set meanwhile is in too
    assert [c["status"] for c in doctor(ana)] == ["ok"]
    assert remote_ids(remote) == after
    bo = clone(remote, tmp_path, "bo")
    ctx = context(bo)
    assert (ctx["story"]["title"], ctx["story"]["status"]) == ("local only", "review")


def test_repair_replaces_a_remote_ref_that_points_at_a_blob(remote: Path,
                                                            tmp_path: Path) -> None:
    ana, bo = clone(remote, tmp_path, "ana"), clone(remote, tmp_path, "bo")
    gen(ana, "story", "set", "STORY-12", "--title", "from ana")
    gen(ana, "sync")
    gen(bo, "sync")
    gen(bo, "story", "set", "STORY-13", "--title", "from bo, not pushed")
    blob = git(remote, "hash-object", "-w", "--stdin", input="not a ledger\n").strip()
    git(remote, "update-ref", R.LEDGER_REF, blob)
    code, data, _ = sync_json(ana)
    assert code == 5 and "it points at a blob" in data["error"]
    assert [c["status"] for c in doctor(ana)] == ["error"]
    res = json.loads(gen(bo, "ledger", "repair", "--json").stdout)
    assert res["error"] is None and res["pushed"] is True
    assert res["repaired"] == ["origin's refs/genesis/ledger (it points at a blob, not a commit)"]
    assert git(remote, "cat-file", "-t", R.LEDGER_REF).strip() == "commit"
    code, data, _ = sync_json(ana)
    assert (code, data["error"]) == (0, None)
    assert [c["status"] for c in doctor(ana)] == ["ok"]
    titles = {s: context(ana, s)["story"]["title"] for s in ("STORY-12", "STORY-13")}
    assert titles == {"STORY-12": "from ana", "STORY-13": "from bo, not pushed"}


def test_repair_without_sharing_leaves_the_remote_alone(remote: Path, tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    gen(ana, "story", "set", "STORY-12", "--title", "mine")
    gen(ana, "sync")
    blob = git(remote, "hash-object", "-w", "--stdin", input="not a ledger\n").strip()
    git(remote, "update-ref", R.LEDGER_REF, blob)
    (ana / ".genesis.toml").write_text("[ledger]\nshare = false\n", encoding="utf-8")
    proc = gen(ana, "ledger", "repair")
    assert proc.stderr == ("genesis: sharing is off: origin's refs/genesis/ledger (it points "
                           "at a blob, not a commit) was left as it is (`genesis init --share` "
                           "turns sharing on)\n")
    assert proc.stdout == "nothing was repaired\nrefs/genesis/ledger: 1 shared record\n"
    assert git(remote, "rev-parse", R.LEDGER_REF).strip() == blob
    assert G.tree_files(ana, R.LEDGER_REF) is not None


# -- point 13: the pre-push hook within its bound ---------------------------------------------


def test_the_pre_push_hook_gives_up_on_a_held_lock_within_its_bound(remote: Path,
                                                                     tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    commit(ana, "app/x.py", "X = 1\n", "STORY-12: busy")
    lock = Path(g(ana, "rev-parse", "--git-common-dir").strip())
    lock = (ana / lock if not lock.is_absolute() else lock) / "genesis" / "sync.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl,sys,time\nf=open(sys.argv[1],'a+b')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)\n",
         str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        env = dict(env_of(), GENESIS_PREPUSH_TIMEOUT="2")
        start = time.monotonic()
        push = subprocess.run(["git", "push", "origin", "main"], cwd=ana, text=True,
                              capture_output=True, env=env, timeout=60)
        took = time.monotonic() - start
    finally:
        holder.kill()
        holder.wait()
    assert push.returncode == 0, push.stderr
    assert took < 2 + 6, took
    assert ("genesis: warning: the story ledger was not pushed (another sync of this clone "
            "held the ledger's lock for more than 2 s); `genesis sync` retries") in push.stderr
    assert gen(ana, "sync", "--json").returncode == 0  # the next sync pushes it
    assert git(remote, "rev-parse", R.LEDGER_REF).strip()


def test_the_pre_push_hook_ends_a_hanging_transport_and_its_children(remote: Path,
                                                                      tmp_path: Path) -> None:
    ana = clone(remote, tmp_path, "ana")
    commit(ana, "app/x.py", "X = 1\n", "STORY-12: slow")
    ssh, pids = hanging_ssh(tmp_path)
    # the user's push goes to the bare remote; the ledger is fetched over "ssh" (url)
    g(ana, "config", "remote.origin.pushurl", f"file://{remote}")
    g(ana, "config", "remote.origin.url", "ssh://git@example.invalid/team/app.git")
    env = dict(env_of(), GENESIS_PREPUSH_TIMEOUT="2", GIT_SSH_COMMAND=str(ssh))
    start = time.monotonic()
    push = subprocess.run(["git", "push", "origin", "main"], cwd=ana, text=True,
                          capture_output=True, env=env, timeout=60)
    took = time.monotonic() - start
    assert push.returncode == 0, push.stderr
    assert took < 2 + 6, took
    assert ("genesis: warning: the story ledger was not pushed (no answer from origin within "
            "2 s); `genesis sync` retries") in push.stderr
    assert survivors(pids) == []
