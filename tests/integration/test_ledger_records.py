"""Ledger records: ids, JSON, the git layout, concurrent appends and the fold."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger.gitref import append_records, read_records
from genesis_git.stories.ledger.records import Record, fold

from helpers import git, make_repo

ROOT = Path(__file__).resolve().parents[2]


def rec(kind: str, story: str | None = "STORY-12", *, t: str = "2026-12-01T03:20:00.000Z",
        email: str = "a@example.com", session: str | None = None, **payload: object) -> Record:
    return Record(id=R.new_id(), kind=kind, story_id=story, session_id=session,
                  author_name=email.split("@")[0], author_email=email, time=t,
                  payload=dict(payload))


def test_ids_are_unique_sortable_and_crockford() -> None:
    ids = [R.new_id() for _ in range(2000)]
    assert len(set(ids)) == 2000
    assert ids == sorted(ids)
    assert all(len(i) == 26 and R._ID_RE.match(i) for i in ids)
    assert R.new_id(ms=0) < R.new_id(ms=1) < R.new_id(ms=2**47)


def test_json_round_trip_keeps_cjk_and_sorts_keys() -> None:
    r = rec("artifact.added", role="decision", content="订单表新增字段 discount_code ✓")
    line = r.to_json()
    assert "\n" not in line and "订单表" in line
    assert list(json.loads(line)) == sorted(json.loads(line))
    assert Record.from_json(line) == r


@pytest.mark.parametrize("line", [
    "", "not json", "[1]", '{"id": "short"}',
    '{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","kind":"","time":"2026-12-01T03:20:00Z"}',
    '{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","kind":"x","time":"yesterday"}',
    '{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","kind":"x","time":"2026-12-01T03:20:00Z","payload":[]}',
    '{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","kind":"x","time":"2026-12-01T03:20:00Z","story_id":5}',
    '{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","kind":"x","time":"2026-12-01T03:20:00Z","author_name":1}',
    "[" * 100000,
])
def test_malformed_records_raise_value_error(line: str) -> None:
    with pytest.raises(ValueError):
        Record.from_json(line)


def test_paths_are_keyed_by_story_and_session_and_safe() -> None:
    assert R.record_path("STORY-12", "s-1") == "stories/STORY-12.jsonl"
    assert R.record_path(None, "s-1") == "sessions/s-1.jsonl"
    assert R.record_path(None, None) == "other.jsonl"
    assert R.record_path("../etc/需求 1", None) == "stories/%2E.%2Fetc%2F%E9%9C%80%E6%B1%82%201.jsonl"


def test_union_is_sorted_unique_and_order_free() -> None:
    a, b, c = (rec("story.title", title=str(i)).to_json().encode() for i in range(3))
    one = R.union_lines(a + b"\n" + c, b + b"\n" + a)
    two = R.union_lines(b + b"\n" + a, c)
    assert one == two
    assert one.count(b"\n") == 3


def test_append_and_read_back_from_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    first = [rec("story.created", title="折扣码", status="in_progress"),
             rec("note.written", None, session="s-1", role="risk", content="old clients")]
    c1 = append_records(repo, first)
    assert c1 and G.resolve(repo, R.LEDGER_REF) == c1
    assert append_records(repo, first) is None  # nothing new
    files = git(repo, "ls-tree", "-r", "--name-only", R.LEDGER_REF).split()
    assert files[0] == "genesis-ledger" and len(files) == 2  # one new file per write
    assert files[1].startswith("log/") and files[1].endswith(".jsonl")
    more = rec("story.title", title="Discount codes")
    c2 = append_records(repo, [more])
    assert git(repo, "rev-parse", f"{c2}^").strip() == c1
    got = list(read_records(repo))
    assert {r.id for r in got} == {r.id for r in first} | {more.id}
    assert fold(got)["STORY-12"].title == "Discount codes"
    # the branch and the working tree are untouched
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "--oneline", "main").count("\n") == 1


def test_malformed_lines_and_foreign_refs_are_skipped_with_one_warning(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    good = rec("story.created", title="t")
    bad = b"{broken\n" + b'{"id":"nope"}\n'
    commit = G.write_commit(repo, None, {"stories/STORY-12.jsonl": good.to_json().encode() + b"\n"
                                         + bad}, [], "x")
    git(repo, "update-ref", R.LEDGER_REF, commit)
    # a ref under refs/genesis/remotes that is a plain branch commit, not a ledger
    git(repo, "update-ref", "refs/genesis/remotes/origin/ledger", "HEAD")
    warnings: list[str] = []
    got = list(read_records(repo, warn=warnings.append))
    assert [r.id for r in got] == [good.id]
    assert len(warnings) == 2
    assert "skipped 2 malformed ledger records" in warnings[0]
    assert "refs/genesis/remotes/origin/ledger is not a genesis ledger" in warnings[1]


def test_appending_to_a_ref_that_is_not_a_ledger_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "update-ref", R.LEDGER_REF, "HEAD")
    with pytest.raises(G.GitError, match="not a genesis ledger"):
        append_records(repo, [rec("story.created")])


def test_concurrent_appends_lose_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    script = (
        "import sys\n"
        "from genesis_git.stories.ledger.gitref import append_records\n"
        "from genesis_git.stories.ledger.records import Record\n"
        "for i in range(6):\n"
        "    append_records(sys.argv[1], [Record.new('artifact.added', story_id='STORY-1',\n"
        "        author_email=sys.argv[2], payload={'role': 'note', 'content': sys.argv[2] + str(i)})])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(repo), f"w{n}@x"], cwd=ROOT)
             for n in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    got = list(read_records(repo))
    assert len(got) == 18
    assert len(fold(got)["STORY-1"].artifacts) == 18


def test_fold_is_independent_of_order_and_last_writer_wins() -> None:
    created_a = rec("story.created", t="2026-12-01T01:00:00.000Z", title="first", status="draft")
    created_b = rec("story.created", t="2026-12-01T01:00:01.000Z", email="b@example.com",
                    title="second")
    t1 = rec("story.title", t="2026-12-01T02:00:00.000Z", title="by a")
    t2 = rec("story.title", t="2026-12-01T02:00:00.000Z", email="b@example.com", title="by b")
    st = rec("story.status", t="2026-12-01T01:30:00.000Z", status="review")
    link = rec("link.added", t="2026-12-01T01:10:00.000Z", link_type="commit", target="abc",
               description="STORY-12: x")
    change = rec("artifact.added", t="2026-12-01T01:10:00.000Z", role="doc_change",
                 doc_id="abc", path="a.py", change_type="updated", source_ref="commit")
    note = rec("artifact.added", t="2026-12-01T01:05:00.000Z", role="risk", content="r",
               note_id="N1", source_ref="s-1")
    dup = rec("artifact.added", t="2026-12-01T01:06:00.000Z", role="risk", content="r",
              note_id="N1", source_ref="s-1")
    everything = [created_a, created_b, t1, t2, st, link, change, note, dup]
    states = [fold(p)["STORY-12"] for p in itertools.islice(itertools.permutations(everything),
                                                             0, None, 997)]
    assert all(s == states[0] for s in states)
    s = states[0]
    assert s.title == "by b"  # same time: the larger e-mail wins
    assert s.status == "review"
    assert s.created_at == "2026-12-01T01:00:00.000Z" and s.created_by == "a <a@example.com>"
    assert [a["role"] for a in s.artifacts] == ["risk", "doc_change"]
    assert s.artifacts[0]["record_id"] == note.id  # the earliest of two equal artifacts
    # the commit is replaced by a rebase: its link and its files leave the story
    removed = rec("link.removed", t="2026-12-01T04:00:00.000Z", link_type="commit", target="abc")
    s2 = fold([*everything, removed])["STORY-12"]
    assert s2.links == [] and [a["role"] for a in s2.artifacts] == ["risk"]
    # a retracted note leaves the story; unknown kinds are skipped
    gone = rec("note.retracted", t="2026-12-01T04:00:00.000Z", note_id="N1")
    odd = rec("story.pinned", t="2026-12-01T05:00:00.000Z", pinned=True)
    s3 = fold([*everything, gone, odd])["STORY-12"]
    assert [a["role"] for a in s3.artifacts] == ["doc_change"]
    assert odd.id not in s3.record_ids
    # only created title: the earliest creation's
    assert fold([created_b, created_a])["STORY-12"].title == "first"
