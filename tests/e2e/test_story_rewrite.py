"""Rewrites and retractions leave records whose fold is the author's view.

One repository with the real hooks; after each amend, rebase or retraction, the
records the store would share are folded into a teammate's store (in several
syncs, and all at once into a fresh one), and every story must read the same
there as here (the local-only fields and private notes aside).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.store.connect import connect
from genesis_git.stories import tables as ledger
from genesis_git.stories.context import build_context
from genesis_git.stories.ledger import view
from genesis_git.stories.ledger.records import Record, new_id

from helpers import commit_files, git

runner = CliRunner()


def cli(*args: str) -> Any:
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def shared_records(home: Path) -> list[Record]:
    src = sqlite3.connect(home / "genesis.db")
    try:
        return [Record.from_json(line) for (line,) in src.execute(
            "SELECT line FROM ledger_records WHERE private=0")]
    finally:
        src.close()


def receive(conn: sqlite3.Connection, recs: list[Record]) -> None:
    """What a sync does with records another clone wrote: store, then fold."""
    random.Random(len(recs)).shuffle(recs)  # the order of arrival does not matter
    conn.execute("BEGIN IMMEDIATE")
    new = view.store_records(conn, recs)
    view.apply(conn, {r.story_id for r in new if r.story_id}, "elsewhere", new=new)
    conn.execute("COMMIT")


def stories(conn: sqlite3.Connection, *, private: bool = True) -> dict[str, Any]:
    """Every story as ``story context --json`` gives it, without what is local to a clone."""
    out: dict[str, Any] = {}
    for item in ledger.list_records(conn):
        ctx = build_context(conn, item["story_id"])
        for c in ctx["commits"]:
            c.pop("reachable", None)
        for role in list(ctx["artifacts"]):
            items = [a for a in ctx["artifacts"][role] if private or not a["private"]]
            for a in items:
                for key in ("id", "doc_id", "shared"):
                    a.pop(key)
            if items:
                ctx["artifacts"][role] = sorted(items, key=lambda a: (a["created_at"],
                                                                      a["summary"] or ""))
            else:
                del ctx["artifacts"][role]
        item.pop("artifacts")  # the list counts private notes too
        out[item["story_id"]] = {"listed": item, "context": ctx}
    return out


class Teammate:
    """Stores that hear of the author's shared records: one after each step, one only
    after the first step and when asked (``late``), one made fresh at each step."""

    def __init__(self, home: Path, tmp: Path) -> None:
        self.home, self.tmp = home, tmp
        self.conn = connect(tmp / "teammate.db")
        self.late = connect(tmp / "late.db")
        self.steps = 0

    def agrees(self, *, late: bool = False) -> dict[str, Any]:
        recs = shared_records(self.home)
        for conn in (self.conn, self.late) if late or not self.steps else (self.conn,):
            have = {r[0] for r in conn.execute("SELECT id FROM ledger_records")}
            receive(conn, [r for r in recs if r.id not in have])
        self.steps += 1
        fresh = connect(self.tmp / f"fresh-{self.steps}.db")  # a clone made only now
        receive(fresh, recs)
        mine = connect(self.home / "genesis.db")
        try:
            expected = stories(mine, private=False)
        finally:
            mine.close()
        assert stories(self.conn) == expected
        assert stories(fresh) == expected
        if late:
            assert stories(self.late) == expected
        fresh.close()
        return expected


@pytest.fixture
def team(repo: Path, genesis_env: Path, tmp_path: Path) -> Teammate:
    inst.install(find_repo(repo), python=sys.executable)
    return Teammate(genesis_env, tmp_path)


def notes_of(view_: dict[str, Any], story: str) -> list[str]:
    arts = view_[story]["context"]["artifacts"]
    return sorted(a["summary"] for role in ("decision", "risk", "note") for a in arts.get(role, []))


def test_amends_move_notes_remove_and_recreate_stories(repo: Path, team: Teammate) -> None:
    cli("session", "start")
    cli("session", "note", "codes are case-insensitive", "--role", "decision")
    cli("session", "note", "old clients drop the field", "--role", "risk")
    cli("session", "note", "my own doubt", "--role", "risk", "--private")
    commit_files(repo, "STORY-12: discount codes", {"a.txt": "a\n"})
    seen = team.agrees()
    assert notes_of(seen, "STORY-12") == ["codes are case-insensitive",
                                          "old clients drop the field"]
    git(repo, "commit", "-q", "--amend", "-m", "STORY-13: discount codes")
    seen = team.agrees()
    assert sorted(seen) == ["STORY-13"]  # STORY-12 held nothing else: it is gone
    assert notes_of(seen, "STORY-13") == ["codes are case-insensitive",
                                          "old clients drop the field"]
    assert seen["STORY-13"]["context"]["story"]["baseline_commit_sha"] == git(
        repo, "rev-parse", "HEAD~1").strip()
    git(repo, "commit", "-q", "--amend", "-m", "discount codes, no story yet")
    assert team.agrees() == {}
    assert cli("session", "artifacts")["unbound"] == 3  # back to pending
    commit_files(repo, "STORY-12: codes again", {"b.txt": "b\n"})
    seen = team.agrees(late=True)  # late: STORY-12 removed and created again in one sync
    story = seen["STORY-12"]["context"]["story"]
    assert (story["title"], story["status"]) == ("codes again", "in_progress")
    assert notes_of(seen, "STORY-12") == ["codes are case-insensitive",
                                          "old clients drop the field"]
    assert len(seen["STORY-12"]["context"]["commits"]) == 1


def test_a_story_that_keeps_its_requirement_goes_back_to_draft(repo: Path,
                                                               team: Teammate) -> None:
    cli("session", "start", "--doc", "docs/req/orders.md")
    cli("session", "note", "codes expire", "--role", "decision")
    commit_files(repo, "STORY-20: codes", {"a.txt": "a\n"})
    runner.invoke(app, ["story", "set", "STORY-20", "--title", "Discount codes"])
    team.agrees()
    git(repo, "commit", "-q", "--amend", "-m", "codes")
    seen = team.agrees()
    ctx = seen["STORY-20"]["context"]
    assert (ctx["story"]["status"], ctx["story"]["title"]) == ("draft", "Discount codes")
    assert [a["path"] for a in ctx["artifacts"]["requirement"]] == ["docs/req/orders.md"]
    assert notes_of(seen, "STORY-20") == [] and ctx["commits"] == []
    git(repo, "commit", "-q", "--amend", "-m", "STORY-21: codes")
    seen = team.agrees()
    assert seen["STORY-20"]["context"]["story"]["status"] == "draft"
    assert notes_of(seen, "STORY-21") == ["codes expire"]
    assert "requirement" in seen["STORY-21"]["context"]["artifacts"]
    # reworded again: the note and the requirement go along, STORY-21 is left with nothing
    git(repo, "commit", "-q", "--amend", "-m", "STORY-22: codes")
    seen = team.agrees()
    assert sorted(seen) == ["STORY-20", "STORY-22"]
    assert notes_of(seen, "STORY-22") == ["codes expire"]
    assert [a["path"] for a in seen["STORY-22"]["context"]["artifacts"]["requirement"]] == [
        "docs/req/orders.md"]


def test_a_rebase_that_rewords_and_squashes_several_story_commits(repo: Path,
                                                                  team: Teammate) -> None:
    cli("session", "start")
    for n, story in enumerate(("STORY-30", "STORY-31", "STORY-30")):
        cli("session", "note", f"note {n} of {story}", "--role", "note")
        commit_files(repo, f"{story}: part {n}", {f"p{n}.txt": f"{n}\n"})
    cli("session", "note", "fixed later", "--role", "risk")
    commit_files(repo, "fixup! STORY-30: part 2", {"p2.txt": "2 fixed\n"})
    team.agrees()
    env = dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i -e '2s/^pick/reword/'",
               GIT_EDITOR="sed -i -e '1s/STORY-31/STORY-32/'")
    proc = subprocess.run(["git", "rebase", "-q", "-i", "--autosquash", "--force-rebase",
                           "HEAD~4"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "log", "--format=%s", "-3").splitlines() == [
        "STORY-30: part 2", "STORY-32: part 1", "STORY-30: part 0"]
    seen = team.agrees()
    assert sorted(seen) == ["STORY-30", "STORY-32"]
    assert notes_of(seen, "STORY-32") == ["note 1 of STORY-31"]
    assert notes_of(seen, "STORY-30") == ["fixed later", "note 0 of STORY-30",
                                          "note 2 of STORY-30"]  # the fixup's note too
    assert [c["subject"] for c in seen["STORY-30"]["context"]["commits"]] == [
        "STORY-30: part 0", "STORY-30: part 2"]


def test_retracted_notes_leave_every_view(repo: Path, team: Teammate) -> None:
    cli("session", "start")
    wrong = cli("session", "note", "discounts stack", "--role", "decision")
    cli("session", "note", "discounts never stack", "--role", "decision")
    secret = cli("session", "note", "margin is thin", "--role", "risk", "--private")
    commit_files(repo, "STORY-12, STORY-40: discount rules", {"a.txt": "a\n"})
    pending = cli("session", "note", "not bound yet", "--role", "note")
    team.agrees()
    out = cli("session", "retract", f"#{wrong['id']}")
    assert (out["retracted"], out["stories"]) == (True, ["STORY-12", "STORY-40"])
    out = cli("session", "retract", str(secret["id"]))
    assert out["private"] is True and out["stories"] == ["STORY-12", "STORY-40"]
    out = cli("session", "retract", str(pending["id"]))
    assert out["stories"] == [] and out["bound_commit"] is None
    seen = team.agrees()
    for story in ("STORY-12", "STORY-40"):
        assert notes_of(seen, story) == ["discounts never stack"]
    assert [a["summary"] for a in cli("session", "artifacts")["artifacts"]] == [
        "discounts never stack"]
    conn = connect(team.home / "genesis.db")
    try:
        kinds = {(r[0], r[1], r[2]) for r in conn.execute(
            "SELECT kind, COALESCE(story_id, '-'), private FROM ledger_records "
            "WHERE kind='note.retracted'")}
    finally:
        conn.close()
    assert kinds == {("note.retracted", "STORY-12", 0), ("note.retracted", "STORY-40", 0),
                     ("note.retracted", "-", 0), ("note.retracted", "STORY-12", 1),
                     ("note.retracted", "STORY-40", 1), ("note.retracted", "-", 1)}


def test_retract_takes_every_id_a_user_sees_and_refuses_others(repo: Path,
                                                               team: Teammate) -> None:
    from genesis_git.stories.ledger.gitref import append_records

    cli("session", "start")
    first = cli("session", "note", "one", "--role", "decision")
    second = cli("session", "note", "two", "--role", "decision")
    third = cli("session", "note", "three", "--role", "decision")
    commit_files(repo, "STORY-50: notes", {"a.txt": "a\n"})
    ctx = cli("story", "context", "STORY-50")
    by_summary = {a["summary"]: a["doc_id"] for a in ctx["artifacts"]["decision"]}
    assert by_summary["one"] == f"session-artifact:{first['id']}"
    assert cli("session", "retract", by_summary["one"])["summary"] == "one"
    conn = connect(team.home / "genesis.db")
    try:
        rid = conn.execute("SELECT record_id FROM session_artifacts WHERE id=?",
                           (second["id"],)).fetchone()[0]
    finally:
        conn.close()
    assert cli("session", "retract", f"note:{rid}")["summary"] == "two"
    # a teammate's note, which came with the ledger: not this clone's to retract
    bos = new_id()
    theirs = Record.new("artifact.added", story_id="STORY-50", author_name="Bo",
                        author_email="bo@example.com",
                        payload={"role": "risk", "content": "bo's risk", "source_ref": "s-bo",
                                 "doc_id": "session-artifact:7", "note_id": bos})
    append_records(repo, [theirs])
    res = runner.invoke(app, ["session", "retract", f"note:{bos.lower()}"])
    assert (res.exit_code, res.output) == (
        1, f"genesis: error: note note:{bos.lower()} was written in another clone (only its "
           "author can retract it)\n")
    res = runner.invoke(app, ["session", "retract", "#999"])
    assert res.exit_code == 1 and res.output.startswith("genesis: error: no note #999 in ")
    res = runner.invoke(app, ["session", "retract", "STORY-50"])
    assert (res.exit_code, res.output) == (
        2, "genesis: error: 'STORY-50' is not a note id (give the #id that `genesis session "
           "artifacts` shows, e.g. 12)\n")
    out = runner.invoke(app, ["session", "retract", str(third["id"])])
    assert out.exit_code == 0
    assert out.output == f"retracted #{third['id']} [decision] three — it left STORY-50\n"
    seen = team.agrees()
    assert notes_of(seen, "STORY-50") == ["bo's risk"]  # only the teammate's note is left
