"""Three clones of one bare remote, hooks installed, one clock a year ahead: after syncs
in any order every clone shows the same story, byte for byte, and each clone's view is
the fold of its own records."""

from __future__ import annotations

import difflib
import itertools
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.stories.ledger import records as R

from clones import clone, comparable, env_of, make_remote
from helpers import git, write

YEAR = str(365 * 24 * 3600)


def _env(skewed: bool) -> dict[str, str]:
    env = env_of()
    if skewed:
        env["GENESIS_TEST_CLOCK_SKEW"] = YEAR
    return env


def run(where: Path, *args: str, skewed: bool = False) -> str:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=where, text=True,
                          capture_output=True, env=_env(skewed), timeout=120)
    assert proc.returncode == 0, f"genesis {' '.join(args)}: {proc.stderr}{proc.stdout}"
    return proc.stdout


def commit(where: Path, rel: str, text: str, message: str, *, skewed: bool = False) -> None:
    write(where, rel, text)
    git(where, "add", "-A", env=_env(skewed))
    git(where, "commit", "-q", "-m", message, env=_env(skewed))  # the installed hooks fire


def context(where: Path, story: str) -> str:
    """``story context --json`` without what is local to one clone (row ids, whether a
    commit is in this clone's history)."""
    ctx = comparable(json.loads(run(where, "story", "context", story, "--json")))
    return json.dumps(ctx, ensure_ascii=False, indent=1)


def assert_same(texts: dict[str, str]) -> None:
    """Every clone printed the same bytes; else the difference, line by line."""
    first, *_ = texts
    for who, text in texts.items():
        diff = "\n".join(difflib.unified_diff(texts[first].splitlines(), text.splitlines(),
                                               first, who, lineterm=""))
        assert text == texts[first], diff


def own_fold(where: Path, story: str) -> R.StoryState:
    db = Path(git(where, "rev-parse", "--git-common-dir").strip())
    db = (where / db if not db.is_absolute() else db) / "genesis" / "genesis.db"
    with sqlite3.connect(db) as conn:
        lines = [r[0] for r in conn.execute("SELECT line FROM ledger_records")]
    return R.fold(R.Record.from_json(line) for line in lines)[story]


@pytest.fixture
def team(tmp_path: Path) -> dict[str, Path]:
    remote = make_remote(tmp_path)
    return {who: clone(remote, tmp_path, who) for who in ("ana", "bo", "cy")}


ORDERS = list(itertools.permutations(("ana", "bo", "cy")))


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_three_clones_converge_with_one_clock_a_year_ahead(
        team: dict[str, Path], order: tuple[str, ...]) -> None:
    skew = {"cy": True}
    # each clone creates STORY-7 by its own commit, with a note bound to it
    for who, where in team.items():
        run(where, "session", "note", f"{who}: 订单表 risk \x1b[31m", "--role", "risk",
            skewed=skew.get(who, False))
        commit(where, f"app/{who}.py", f"X = '{who}'\n", f"STORY-7: {who}'s part",
               skewed=skew.get(who, False))
    run(team["cy"], "story", "set", "STORY-7", "--title", "cy's title, a year ahead",
        skewed=True)
    run(team["bo"], "story", "set", "STORY-7", "--title", "bo's title", "--status", "review")
    for _ in range(2):
        for who in order:
            run(team[who], "sync", skewed=skew.get(who, False))
    # a concurrent write from the future wins, as it should: nobody had seen it
    first = {who: context(where, "STORY-7") for who, where in team.items()}
    assert_same(first)
    story = json.loads(first["ana"])["story"]
    assert story["title"] == "cy's title, a year ahead"
    # ana saw cy's record: her next title wins, however far ahead cy's clock is
    run(team["ana"], "story", "set", "STORY-7", "--title", "ana's title, after cy's")
    for who in reversed(order):
        run(team[who], "sync", skewed=skew.get(who, False))
    for who in order:
        run(team[who], "sync", skewed=skew.get(who, False))
    final = {who: context(where, "STORY-7") for who, where in team.items()}
    assert_same(final)
    story = json.loads(final["ana"])["story"]
    assert story["title"] == "ana's title, after cy's"
    assert story["status"] == "review"
    # the story's creation is the first story.created in the records' order, in every
    # clone (cy's clock is ahead: it is never cy's)
    assert not story["created_by"].startswith("Cy")
    for where in team.values():
        state = own_fold(where, "STORY-7")
        assert (story["title"], story["status"], story["created_at"], story["created_by"],
                story["updated_at"]) == (state.title, state.status, state.created_at,
                                         state.created_by, state.updated_at)
    notes = json.loads(final["bo"])["artifacts"]
    assert sum(len(v) for v in notes.values()) >= 3
    # every clone lists the same stories
    lists = {who: run(where, "story", "list", "--json") for who, where in team.items()}
    assert_same(lists)


def test_a_sync_adds_one_new_file_and_changes_none(team: dict[str, Path]) -> None:
    ana = team["ana"]
    run(ana, "session", "note", "first", "--role", "risk")
    commit(ana, "app/a.py", "A = 1\n", "STORY-8: first")
    run(ana, "sync")
    before = dict(_tree(ana))
    run(ana, "session", "note", "second", "--role", "risk")
    commit(ana, "app/a.py", "A = 2\n", "STORY-8: second")
    run(ana, "sync")
    after = dict(_tree(ana))
    assert {p: after[p] for p in before} == before  # nothing written changes
    added = [p for p in after if p not in before]
    assert len(added) == 1 and added[0].startswith("log/")
    remote = git(ana, "rev-parse", "refs/genesis/remotes/origin/ledger").strip()
    assert remote == git(ana, "rev-parse", R.LEDGER_REF).strip()


def _tree(where: Path) -> list[tuple[str, str]]:
    out = git(where, "ls-tree", "-r", R.LEDGER_REF)
    return [(line.split("\t")[1], line.split()[2]) for line in out.splitlines()]



def _records(where: Path, kind: str, story: str) -> int:
    db = Path(git(where, "rev-parse", "--absolute-git-dir").strip()) / "genesis" / "genesis.db"
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM ledger_records WHERE kind=? AND "
                                "story_id=?", (kind, story)).fetchone()[0])


def test_rebuild_in_two_clones_does_not_flip_the_baseline(team: dict[str, Path]) -> None:
    ana, bo = team["ana"], team["bo"]
    commit(ana, "app/a.py", "A = 1\n", "STORY-4: ana's part")
    commit(bo, "app/other.py", "O = 1\n", "unrelated work")
    commit(bo, "app/b.py", "B = 1\n", "STORY-4: bo's part")
    for _ in range(2):
        for where in (ana, bo, ana):
            run(where, "sync")
            run(where, "story", "rebuild")
    settled = [_records(w, "story.baseline", "STORY-4") for w in (ana, bo)]
    for _ in range(2):
        for where in (bo, ana, bo):
            run(where, "story", "rebuild")
            run(where, "sync")
    assert [_records(w, "story.baseline", "STORY-4") for w in (ana, bo)] == settled
    base = {json.loads(context(w, "STORY-4"))["story"]["baseline_commit_sha"]
            for w in (ana, bo)}
    assert len(base) == 1


def test_rebuild_from_scratch_keeps_notes_once_and_private_ones_private(
        team: dict[str, Path], tmp_path: Path) -> None:
    ana, bo = team["ana"], team["bo"]
    run(ana, "session", "note", "shared risk: 折扣码 may collide", "--role", "risk")
    run(ana, "session", "note", "private pricing idea 秘密", "--role", "analysis",
        "--section", "Hidden-Section-7f3", "--private")
    commit(ana, "app/a.py", "A = 1\n", "STORY-5: discount codes")
    run(ana, "sync")
    before = json.loads(context(ana, "STORY-5"))
    run(ana, "story", "rebuild", "--from-scratch")
    after = json.loads(context(ana, "STORY-5"))
    assert after == before  # nothing twice, the private note still private
    assert len(after["artifacts"]["risk"]) == 1
    assert [a["private"] for a in after["artifacts"]["analysis"]] == [True]
    # the commit is amended to another story: the notes follow it
    git(ana, "commit", "-q", "--amend", "-m", "STORY-6: discount codes", env=_env(False))
    run(ana, "sync")
    run(bo, "sync")
    shown = json.loads(context(bo, "STORY-6"))
    assert len(shown["artifacts"]["risk"]) == 1 and "analysis" not in shown["artifacts"]
    listed = json.loads(run(bo, "story", "list", "--json"))
    assert "STORY-5" not in json.dumps(listed)  # no empty draft left behind
    remote = tmp_path / "remote.git"
    objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"],
                             cwd=remote, capture_output=True, check=True).stdout
    assert b"Hidden-Section-7f3" not in objects
    assert "秘密".encode() not in objects
    assert "折扣码".encode() in objects  # the public note was shared
