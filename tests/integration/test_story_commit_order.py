"""The order of a story's commits when their times do not tell it.

A rebase rewrites a whole series in one second, and the hooks may link them in the same
instant; a clock may be behind a teammate's. The order must then follow history, never
the SHAs or the clocks, even when the story's commits are each other's ancestors only
through another story's commits."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

from genesis_git.store import stories as story_rows
from genesis_git.store.connect import connect
from genesis_git.stories.context import build_context

SECOND = 1_790_000_000
AT = "2026-09-21T10:00:00+00:00"


def _ledger(tmp_path: Path, links: list[tuple[str, str, list[str], int]]):
    conn = connect(tmp_path / "genesis.db")
    for story in sorted({story for story, *_ in links}):
        story_rows.add_record(conn, story, "p", story, "draft", None, "ana", AT)
    story_rows.add_links(conn, [
        (story, "commit", sha, f"{story}: {sha[:4]}",
         json.dumps({"parents": parents, "committed": committed, "subject": sha[:4]}),
         AT, None)
        for story, sha, parents, committed in links])
    conn.commit()
    return conn


def _sha(c: str) -> str:
    return c * 40


def test_commits_of_one_second_follow_history_through_other_stories(tmp_path: Path) -> None:
    # history: a -> f (STORY-31) -> 0 -> e (STORY-31) -> 1; the SHAs sort the other way
    with closing(_ledger(tmp_path, [
        ("STORY-30", _sha("1"), [_sha("e")], SECOND),
        ("STORY-30", _sha("0"), [_sha("f")], SECOND),
        ("STORY-31", _sha("e"), [_sha("0")], SECOND),
        ("STORY-31", _sha("f"), [_sha("a")], SECOND),
        ("STORY-30", _sha("a"), [_sha("9")], SECOND),
    ])) as conn:
        commits = build_context(conn, "STORY-30")["commits"]
        assert [c["sha"][0] for c in commits] == ["a", "0", "1"]
        assert [c["sha"][0] for c in build_context(conn, "STORY-31")["commits"]] == ["f", "e"]


def test_a_clock_behind_never_puts_a_commit_before_its_ancestor(tmp_path: Path) -> None:
    # "2" was committed on a clock an hour behind, on top of "c" (another story), which
    # is on top of "b"; "1" is on another branch, made between the two by the clocks
    with closing(_ledger(tmp_path, [
        ("STORY-40", _sha("b"), [_sha("8")], SECOND),
        ("STORY-41", _sha("c"), [_sha("b")], SECOND + 60),
        ("STORY-40", _sha("2"), [_sha("c")], SECOND - 3600),
        ("STORY-40", _sha("1"), [_sha("8")], SECOND - 1800),
    ])) as conn:
        assert [c["sha"][0] for c in build_context(conn, "STORY-40")["commits"]] == [
            "1", "b", "2"]


def test_the_graph_is_read_a_day_around_the_story_and_survives_bad_links(
        tmp_path: Path) -> None:
    with closing(_ledger(tmp_path, [
        ("STORY-50", _sha("a"), [_sha("9")], SECOND),
        ("STORY-51", _sha("9"), [_sha("8")], SECOND - 3600),
        ("STORY-51", _sha("8"), [], SECOND - 2 * 24 * 3600),
        ("STORY-51", _sha("b"), [_sha("a")], SECOND + 2 * 24 * 3600),
    ])) as conn:
        for sha, meta in ((_sha("7"), "{not json"), (_sha("6"), '"not an object"')):
            conn.execute("INSERT INTO story_links(story_id, link_type, target_ref, "
                         "description, meta, created_at) VALUES ('STORY-51', 'commit', ?, "
                         "'x', ?, ?)", (sha, meta, AT))
        assert story_rows.commit_graph(conn, SECOND - 24 * 3600, SECOND + 24 * 3600) == {
            _sha("a"): [_sha("9")], _sha("9"): [_sha("8")]}


def test_parents_that_make_a_cycle_still_list_every_commit(tmp_path: Path) -> None:
    # a ledger written by hand can say anything: each commit the other's parent
    with closing(_ledger(tmp_path, [
        ("STORY-60", _sha("e"), [_sha("f")], SECOND),
        ("STORY-60", _sha("f"), [_sha("e")], SECOND + 1),
        ("STORY-60", _sha("0"), [], SECOND + 2),
    ])) as conn:
        assert [c["sha"][0] for c in build_context(conn, "STORY-60")["commits"]] == [
            "0", "e", "f"]
