"""The one rule for what names a story: the hooks, `story rebuild`, `genesis sync` and the
prefixes `genesis init` proposes all read ids with it."""

from __future__ import annotations

import pytest

from genesis_git.stories.commits import (
    CommitInfo,
    StoryRules,
    collect_ids,
    ids_in_text,
    is_merge_subject,
    skipped_ids,
    story_ids,
)
from genesis_git.stories.message import message_story_ids

DEFAULT = StoryRules().effective


def _commit(subject: str, body: str = "", parents: int = 1) -> CommitInfo:
    return CommitInfo(sha="c" * 40, parents=["p" * 40] * parents, author_name="A",
                      author_email="a@example.com", author_date="2026-01-01T00:00:00Z",
                      committer_ts=0, subject=subject,
                      message=subject + ("\n\n" + body if body else ""))


@pytest.mark.parametrize("subject", [
    "Added tests R12-10",                               # a digit in the prefix
    "IEC61131-3 conformance of the PLC export",
    "follow EN50128-1 wording",
    "Follow up for PR-28119",                           # hosting numbers
    "test(solvers): add regression test for GH-4886",
    "see MR-12 on the GitLab side",
    "PY-2018.3 <me@DESKTOP Create vcs.xml",             # a version
    "release STORY-12.3",
    "Merge pull request #1306 from user/PR-1139",       # merge subjects
    "Merge pull request #1302 from paxnovem/ISSUE-1212",
    "Merge branch 'SHOP-4' into main",
    "Merge STORY-104 into main",
    "upgrade UTF-8 handling and SHA-256 ids",
])
def test_words_that_only_look_like_ids_name_no_story(subject: str) -> None:
    assert story_ids(_commit(subject), DEFAULT) == []
    assert message_story_ids(subject + "\n", DEFAULT) == []


@pytest.mark.parametrize(("subject", "ids"), [
    ("STORY-12: add a discount code", ["STORY-12"]),
    ("[SHOP-2] refund, see GH-4886", ["SHOP-2"]),
    ("修复STORY-103问题", ["STORY-103"]),
    ("STORY-12. done", ["STORY-12"]),
    ("AI-2138: flush the intervals", ["AI-2138"]),
    ("fix the export (STORY-7)", ["STORY-7"]),
])
def test_real_ids_still_bind(subject: str, ids: list[str]) -> None:
    assert story_ids(_commit(subject), DEFAULT) == ids


def test_a_merge_commit_names_no_story_even_in_its_body() -> None:
    merge = _commit("Merge pull request #12 from ana/discount", "STORY-12: discount codes",
                    parents=2)
    assert story_ids(merge, DEFAULT) == []
    # the same body under an ordinary subject does bind: ids that open a body line count
    assert story_ids(_commit("discount codes", "STORY-12: discount codes"), DEFAULT) == [
        "STORY-12"]
    # a squash whose subject starts with "Merge " keeps the ids of its body lines
    assert collect_ids("Merge STORY-104 into main", ["STORY-104: the work"], [],
                       DEFAULT) == ["STORY-104"]


def test_merge_subjects() -> None:
    assert is_merge_subject("Merge branch 'main' of github.com:org/shop")
    assert is_merge_subject("  Merge STORY-104 into main")
    assert not is_merge_subject("Merged the STORY-104 work")
    assert not is_merge_subject("STORY-104: Merge the two tables")


def test_a_prefix_with_a_digit_binds_when_listed() -> None:
    text = "R12-10 IEC61131-3 EN50128-1 STORY-1"
    assert ids_in_text(text, DEFAULT) == ["STORY-1"]
    assert ids_in_text(text, StoryRules(prefixes=["R12", "IEC61131"]).effective) == [
        "R12-10", "IEC61131-3"]
    # hosting numbers too, when the team says they are its stories
    assert ids_in_text("GH-4886 PR-7", StoryRules(prefixes=["GH"]).effective) == ["GH-4886"]


def test_rebuild_reports_the_ids_the_rules_rule_out() -> None:
    commit = _commit("Follow up for PR-28119 and STORY-3")
    assert skipped_ids(commit, StoryRules()) == ["PR-28119"]
    assert story_ids(commit, DEFAULT) == ["STORY-3"]
