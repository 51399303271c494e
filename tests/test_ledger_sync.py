"""The shared ledger through real remotes: a bare repository reached with ``file://``,
clones with their own stores and installed hooks, real commits and pushes."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.ledger import records as R
from tests.conftest import git, write

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = {"ana": ("Ana Analyst", "ana@example.com"), "bo": ("Bo Builder", "bo@example.com"),
          "cy": ("Cy 陈", "cy@example.com")}


def env_of() -> dict[str, str]:
    """A clone's own store (in its git dir) and its own identity (from its git config)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GENESIS_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                        "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")}
    env["GENESIS_HOOKS_INDEX"] = "off"
    env["PYTHONPATH"] = str(ROOT)
    return env


def gen(clone: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=clone, text=True,
                          capture_output=True, env=env_of(), timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"genesis {' '.join(args)} failed ({proc.returncode}): "
                             f"{proc.stderr}{proc.stdout}")
    return proc


def g(clone: Path, *args: str, check: bool = True) -> str:
    return git(clone, *args, check=check, env=env_of())


def context(clone: Path, story: str = "STORY-12") -> dict:
    return json.loads(gen(clone, "story", "context", story, "--json").stdout)


def comparable(ctx: dict) -> dict:
    """The context without what is local to one clone (row ids, the local session)."""
    out = json.loads(json.dumps(ctx))
    for items in out["artifacts"].values():
        for a in items:
            for key in ("id", "doc_id", "shared"):
                a.pop(key, None)
        items.sort(key=lambda a: (a["created_at"], a["summary"] or ""))
    return out


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit on main, with sharing turned on."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    write(seed, "app/orders.py", "def total(items):\n    return sum(items)\n")
    write(seed, "docs/req/orders.md", "# 订单需求\n\n订单表新增字段 discount_code。\n")
    write(seed, ".genesis.toml", "[ledger]\nshare = true\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


def clone(remote: Path, tmp_path: Path, who: str) -> Path:
    path = tmp_path / who
    git(tmp_path, "clone", "-q", f"file://{remote}", str(path))
    name, email = PEOPLE[who]
    git(path, "config", "user.name", name)
    git(path, "config", "user.email", email)
    git(path, "config", "commit.gpgsign", "false")
    gen(path, "init")
    gen(path, "hooks", "install")
    return path


def commit(clone_: Path, rel: str, text: str, message: str) -> str:
    write(clone_, rel, text)
    g(clone_, "add", "-A")
    g(clone_, "commit", "-q", "-m", message)
    return g(clone_, "rev-parse", "HEAD").strip()


def remote_objects_text(bare: Path) -> str:
    """Every object the remote holds, read with git cat-file."""
    out = git(bare, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    shas = out.split()
    text = git(bare, "cat-file", "--batch", input="".join(s + "\n" for s in shas))
    return text


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
    from genesis_git.api import Genesis

    with Genesis(path) as gx:
        return gx.sync(warn=lambda _m: None)


def in_process_context(path: Path, story: str = "STORY-12") -> dict:
    from genesis_git.api import Genesis

    with Genesis(path) as gx:
        from genesis_git.story.context import build_context

        return comparable(build_context(gx.context.conn, story))


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
