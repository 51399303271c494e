"""The fold's total order: hybrid logical clocks, content-addressed ids, conflicting
duplicates, records of the older format, and the append-only layout."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import asdict

import pytest

from genesis_git.stories.ledger import outbox
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger.records import Record, fold

YEAR_MS = 365 * 24 * 3600 * 1000
NOW = 1_764_560_000_000  # 2025-12-01


def rec(kind: str, *, ms: int, count: int = 0, email: str = "a@example.com",
        story: str | None = "STORY-7", **payload: object) -> Record:
    return Record.new(kind, story_id=story, author_name=email.split("@")[0],
                      author_email=email, payload=dict(payload), time=outbox.iso(ms),
                      hlc=(ms, count))


def legacy(kind: str, t: str, rid: str, email: str = "old@example.com",
           **payload: object) -> Record:
    """A record as versions without a clock wrote it: a time-sorted id, no ``hlc``."""
    return Record(id=rid, kind=kind, story_id="STORY-7", session_id=None,
                  author_name="old", author_email=email, time=t, payload=dict(payload))


def test_the_clock_never_goes_back_and_passes_what_it_read() -> None:
    c = outbox.tick(None, NOW)
    assert c == (NOW, 0)
    assert outbox.tick(c, NOW) == (NOW, 1)
    assert outbox.tick((NOW, 1), NOW - 5000) == (NOW, 2)  # the wall clock went back
    assert outbox.tick((NOW, 2), NOW + 1) == (NOW + 1, 0)
    # a record read from a clone a year ahead: the next one written here sorts after it
    future = (NOW + YEAR_MS, 4)
    assert outbox.tick(future, NOW) > future


def test_a_clock_a_year_ahead_wins_only_until_someone_has_seen_it() -> None:
    ahead = rec("story.title", ms=NOW + YEAR_MS, email="cy@example.com", title="cy")
    mine = rec("story.title", ms=NOW, email="ana@example.com", title="ana, unseen")
    assert fold([rec("story.created", ms=NOW - 10, title="t"), ahead, mine])[
        "STORY-7"].title == "cy"
    after = outbox.tick(ahead.hlc, NOW + 1000)
    seen = rec("story.title", ms=after[0], count=after[1], email="ana@example.com",
               title="ana, after reading cy")
    assert fold([ahead, mine, seen])["STORY-7"].title == "ana, after reading cy"


def test_the_same_records_fold_to_the_same_bytes_in_any_order() -> None:
    recs = [rec("story.created", ms=NOW + 5, email="bo@example.com", title="bo",
                project_id="bo-folder", created_by="Bo <bo@example.com>"),
            rec("story.created", ms=NOW + 5, email="ana@example.com", title="ana",
                project_id="shop"),
            rec("story.created", ms=NOW + YEAR_MS, email="cy@example.com", title="cy",
                project_id="cy-folder"),
            rec("story.status", ms=NOW + 7, status="review"),
            rec("artifact.added", ms=NOW + 8, role="risk", content="订单 \x1b[31m"),
            legacy("story.title", "2025-12-01T03:33:20.004Z", "01KBC5V4W4AAAAAAAAAAAAAAAA",
                   title="old title")]
    outputs = set()
    for perm in itertools.permutations(recs):
        outputs.add(json.dumps({k: asdict(v) for k, v in fold(perm).items()},
                               ensure_ascii=False, sort_keys=True))
    assert len(outputs) == 1
    state = fold(recs)["STORY-7"]
    # the earliest creation by the total order (clock, then id): one of the two at NOW+5
    first = min(recs[:2], key=Record.order)
    assert state.created_at == first.time
    assert state.project_id == first.payload["project_id"]
    assert state.created_by == (first.payload.get("created_by") or first.author)


def test_the_creation_is_a_story_created_record_when_there_is_one() -> None:
    note = rec("artifact.added", ms=NOW, role="risk", content="early note",
               email="bo@example.com")
    made = rec("story.created", ms=NOW + 10, title="t", email="ana@example.com")
    state = fold([note, made])["STORY-7"]
    assert (state.created_at, state.created_by) == (made.time, made.author)


def test_records_without_a_clock_fold_by_their_time_then_id() -> None:
    a = legacy("story.title", "2025-12-01T03:33:20.000Z", "01KBC5V4W0ZZZZZZZZZZZZZZZZ",
               title="earlier")
    b = legacy("story.title", "2025-12-01T03:33:20.000Z", "01KBC5V4W1AAAAAAAAAAAAAAAA",
               title="same ms, higher id")
    assert a.clock == (R.time_ms(a.time), 0) and a.hlc is None
    assert fold([b, a])["STORY-7"].title == "same ms, higher id"
    # a new record at the same millisecond with a counter sorts after an old one
    c = rec("story.title", ms=R.time_ms(a.time), count=1, title="new")
    assert fold([c, b, a])["STORY-7"].title == "new"
    # old lines still parse and write back unchanged
    line = a.to_json()
    assert "hlc" not in line and Record.from_json(line) == a


def test_an_id_is_the_hash_of_the_content() -> None:
    r = rec("artifact.added", ms=NOW, role="decision", content="订单表新增字段")
    line = r.to_json()
    assert R._ID_RE.match(r.id) and outbox.id_matches(line, r.id)
    assert rec("artifact.added", ms=NOW, role="decision", content="订单表新增字段").id == r.id
    assert rec("artifact.added", ms=NOW, count=1, role="decision", content="订单表新增字段"
               ).id != r.id
    forged = line.replace("订单表新增字段", "something else")
    with pytest.raises(ValueError, match="not the hash"):
        Record.from_json(forged)
    # the same content spelled with other spacing is still the same record
    spaced = json.dumps(json.loads(line), ensure_ascii=False, sort_keys=True, indent=1)
    assert Record.from_json(spaced) == r


def test_a_conflicting_duplicate_keeps_the_same_line_everywhere() -> None:
    good = rec("story.title", ms=NOW, title="original").to_json().encode()
    data = json.loads(good)
    data["payload"]["title"] = "replaced"
    del data["hlc"]  # written as an old record with the same id: it cannot be verified
    forged = json.dumps(data, ensure_ascii=False, sort_keys=True,
                        separators=(",", ":")).encode()
    conflicts: list[bytes] = []
    one = R.union_lines(good, forged, conflicts=conflicts)
    two = R.union_lines(forged, good)
    assert one == two == good + b"\n" and len(conflicts) == 1
    # two old records with one id: the lowest hash, whatever the order
    x = legacy("story.title", "2025-12-01T03:33:20.000Z", "01KBC5V4W0ZZZZZZZZZZZZZZZZ",
               title="x").to_json().encode()
    y = x.replace(b'"title":"x"', b'"title":"y"')
    assert R.union_lines(x, y) == R.union_lines(y, x)
    assert R.winner(x, y, R._line_id(x)) == R.winner(y, x, R._line_id(x))


def test_a_batch_is_one_file_named_by_its_content_and_day() -> None:
    recs = [rec("note.written", ms=NOW + i, story=None, content=f"n{i}") for i in range(5)]
    files = R.batch_files(recs, NOW)
    [(path, data)] = files.items()
    assert path.startswith("log/2025/12/01/") and path.endswith(".jsonl")
    assert data == R.union_lines(data)  # sorted and unique: a union leaves it as it is
    shuffled = recs[:]
    random.Random(3).shuffle(shuffled)
    assert R.batch_files(shuffled, NOW) == files
    assert R.batch_files([], NOW) == {}
