"""Clones converge: a record id reused with other content, records of the older layout
and format next to the new ones, and the clock that a read moves forward."""

from __future__ import annotations

import json
from pathlib import Path

from genesis_git.store import ledger as ledger_rows
from genesis_git.store.connect import connect
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import outbox, view
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger.records import Record

from helpers import git, make_repo

YEAR_MS = 365 * 24 * 3600 * 1000


def _legacy(title: str, rid: str = "01KBC5V4W0ZZZZZZZZZZZZZZZZ") -> bytes:
    rec = Record(id=rid, kind="story.title", story_id="STORY-3", session_id=None,
                 author_name="old", author_email="old@example.com",
                 time="2025-12-01T03:33:20.000Z", payload={"title": title})
    return rec.to_json().encode() + b"\n"


def _ledger(repo: Path, ref: str, files: dict[str, bytes]) -> None:
    commit = G.write_commit(repo, None, files, [], "ledger")
    git(repo, "update-ref", ref, commit)


def _title(repo: Path, db: Path, warnings: list[str]) -> str | None:
    conn = connect(db)
    view.refresh(conn, repo, repo / ".git", "shop", warn=warnings.append, force=True)
    lines = [r[0] for r in conn.execute("SELECT line FROM ledger_records")]
    row = conn.execute("SELECT title FROM story_records WHERE story_id='STORY-3'").fetchone()
    conn.close()
    folded = R.fold(Record.from_json(x) for x in lines)["STORY-3"].title
    assert row is not None and row[0] == folded  # the view is the fold of its records
    return folded


def test_a_reused_id_keeps_the_same_record_in_an_old_and_a_fresh_clone(tmp_path: Path) -> None:
    created = Record.new("story.created", story_id="STORY-3", author_name="a",
                         author_email="a@example.com", payload={"title": "t"})
    base = created.to_json().encode() + b"\n"
    one, other = _legacy("original"), _legacy("replaced")
    kept = R.winner(one.strip(), other.strip(), R._line_id(one))
    lost = other if kept == one.strip() else one
    # the old clone read the record that loses first, then a ledger holding the other
    old = make_repo(tmp_path / "old", {"a.txt": "a\n"})
    _ledger(old, R.LEDGER_REF, {"stories/STORY-3.jsonl": base + lost})
    warnings: list[str] = []
    first = _title(old, tmp_path / "old.db", warnings)
    assert first == json.loads(lost)["payload"]["title"] and warnings == []
    _ledger(old, "refs/genesis/remotes/origin/ledger", {"log/x.jsonl": base + kept + b"\n"})
    assert _title(old, tmp_path / "old.db", warnings) == json.loads(kept)["payload"]["title"]
    assert len(warnings) == 1 and "01KBC5V4W0ZZZZZZZZZZZZZZZZ" in warnings[0]
    # a fresh clone holding both ledgers keeps the same one
    fresh = make_repo(tmp_path / "fresh", {"a.txt": "a\n"})
    _ledger(fresh, R.LEDGER_REF, {"stories/STORY-3.jsonl": base + other})
    _ledger(fresh, "refs/genesis/remotes/origin/ledger", {"log/y.jsonl": base + one})
    more: list[str] = []
    assert _title(fresh, tmp_path / "fresh.db", more) == json.loads(kept)["payload"]["title"]
    assert len(more) == 1


def test_a_forged_record_with_a_clock_is_skipped_and_the_original_kept(tmp_path: Path) -> None:
    good = Record.new("story.created", story_id="STORY-3", author_name="a",
                      author_email="a@example.com", payload={"title": "the original"})
    forged = good.to_json().replace("the original", "taken over")
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    _ledger(repo, R.LEDGER_REF, {"log/a.jsonl": good.to_json().encode() + b"\n"})
    _ledger(repo, "refs/genesis/remotes/origin/ledger", {"log/b.jsonl": forged.encode() + b"\n"})
    warnings: list[str] = []
    assert _title(repo, tmp_path / "g.db", warnings) == "the original"
    assert any("not the hash" in w for w in warnings)
    assert [r.payload["title"] for r in G.read_records(repo, warn=lambda _m: None)] == [
        "the original"]


def test_reading_a_clock_from_the_future_moves_this_clone_past_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    ahead_ms = outbox.wall_ms() + YEAR_MS
    ahead = Record.new("story.created", story_id="STORY-3", author_name="cy",
                       author_email="cy@example.com", payload={"title": "from the future"},
                       hlc=(ahead_ms, 3), time=outbox.iso(ahead_ms))
    _ledger(repo, "refs/genesis/remotes/origin/ledger",
            {"log/c.jsonl": ahead.to_json().encode() + b"\n"})
    conn = connect(tmp_path / "g.db")
    view.refresh(conn, repo, repo / ".git", "shop", force=True)
    with conn:
        rid = outbox.emit(conn, "story.title", {"title": "after reading it"}, story_id="STORY-3")
    line = ledger_rows.lines_of(conn, [rid])[rid]
    mine = Record.from_json(line)
    assert mine.hlc == (ahead_ms, 4)
    assert mine.time < ahead.time  # the wall time shown stays this clone's own
    assert R.fold([ahead, mine])["STORY-3"].title == "after reading it"
    # the clock survives a cleared cache: it is found again from the records
    with conn:
        conn.execute("DELETE FROM genesis_kv")
        rid = outbox.emit(conn, "story.status", {"status": "review"}, story_id="STORY-3")
    second = Record.from_json(ledger_rows.lines_of(conn, [rid])[rid])
    assert second.hlc == (ahead_ms, 5)
    conn.close()


def test_the_older_layout_is_read_next_to_the_new_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    _ledger(repo, R.LEDGER_REF, {"stories/STORY-3.jsonl": _legacy("old layout")})
    new = Record.new("story.status", story_id="STORY-3", author_name="a",
                     author_email="a@example.com", payload={"status": "done"})
    assert G.append_records(repo, [new])
    names = git(repo, "ls-tree", "-r", "--name-only", R.LEDGER_REF).split()
    assert "stories/STORY-3.jsonl" in names and any(n.startswith("log/") for n in names)
    state = R.fold(G.read_records(repo))["STORY-3"]
    assert (state.title, state.status) == ("old layout", "done")


def test_the_origin_is_set_when_only_the_creation_differs(tmp_path: Path) -> None:
    """Two clones of one repository share the project id: the first creation in the
    records' order still replaces this clone's own (when, who)."""
    from genesis_git.store import stories as story_rows

    conn = connect(tmp_path / "genesis.db")
    story_rows.add_record(conn, "S-1", "git:abc", "t", "draft", None, "Bo <bo@x>",
                          "2026-01-01T00:00:02.000Z")
    assert story_rows.set_origin(conn, "S-1", "git:abc", "2026-01-01T00:00:01.000Z",
                                 "Ana <ana@x>") == 1
    row = story_rows.record(conn, "S-1")
    assert row is not None
    assert (row["project_id"], row["created_at"], row["created_by"]) == (
        "git:abc", "2026-01-01T00:00:01.000Z", "Ana <ana@x>")
    assert story_rows.set_origin(conn, "S-1", None, "2026-01-01T00:00:01.000Z",
                                 "Ana <ana@x>") == 0  # nothing to change
