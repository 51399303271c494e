"""Story ids from messages, exemptions, titles, and reading commits and their files from git."""

from __future__ import annotations

from pathlib import Path

from genesis_git.git.repo import find_repo
from genesis_git.stories.commits import (
    CommitInfo,
    changed_files,
    head_ids,
    parse_log,
    read_commits,
    story_ids,
    title_from_subject,
)
from genesis_git.stories.message import is_exempt, message_story_ids

from helpers import git, make_repo, write

P = r"[A-Z][A-Z0-9]+-\d+"


def _commit(subject: str, message: str, trailers: list[tuple[str, str]] | None = None
            ) -> CommitInfo:
    return CommitInfo("a" * 40, [], "A", "a@b", "2024-01-01T00:00:00+00:00", 0, subject,
                      message, trailers)


def test_ids_from_the_subject_body_heads_and_story_trailers() -> None:
    c = _commit("STORY-1, STORY-2: fix (see OPS-3)",
                "STORY-1, STORY-2: fix (see OPS-3)\n\nfollows STORY-9 and UTF-8 work\n"
                "[STORY-4] squashed in\nStory: shop#7, X-1, OPS-5\n",
                [("Story", "shop#7, X-1, OPS-5"), ("Refs", "STORY-8")])
    # trailer values match the pattern like any id: "shop#7" and "X-1" are not ids
    assert story_ids(c, P) == ["STORY-1", "STORY-2", "OPS-3", "STORY-4", "OPS-5"]
    assert story_ids(_commit("no id here", "no id here\n"), P) == []
    assert story_ids(_commit("wip STORY-12a", "wip STORY-12a\n"), P) == []  # not a whole id
    assert c.session_id is None
    assert _commit("x", "x", [("Genesis-Session", "s-1"), ("genesis-session", "s-2")]
                   ).session_id == "s-2"


def test_ids_of_a_message_being_written() -> None:
    msg = ("Add orders\n\nSTORY-8: two\nprose about STORY-99\n"
           "# STORY-77 is a comment\nStory: ABC-1\n"
           "# ------------------------ >8 ------------------------\n"
           "STORY-66: in the diff below the scissors\n")
    assert message_story_ids(msg, P) == ["STORY-8", "ABC-1"]
    assert message_story_ids("STORY-5 and STORY-6\ncontinued subject\n\nbody", P) == [
        "STORY-5", "STORY-6"]
    assert message_story_ids("\n\n# only comments\n", P) == []


def test_exempt_messages() -> None:
    for msg in ("Merge branch 'x'", 'Revert "STORY-1: x"', "fixup! a", "squash! a",
                "amend! a", "# comment\n\nMerge remote-tracking branch 'o/m'"):
        assert is_exempt(msg), msg
    for msg in ("Merged the thing", "", "fixup without bang"):
        assert not is_exempt(msg), msg


def test_head_ids_and_titles() -> None:
    assert head_ids("STORY-1, STORY-2 - two things", P) == (["STORY-1", "STORY-2"], "two things")
    assert head_ids("(STORY-3) x", P) == (["STORY-3"], "x")
    assert head_ids("no ids", P) == ([], "no ids")
    assert title_from_subject("STORY-12: Add a discount", P) == "Add a discount"
    assert title_from_subject("STORY-12", P) == "STORY-12"
    assert title_from_subject("Add STORY-12 support", P) == "Add STORY-12 support"


def test_parse_log_skips_broken_records() -> None:
    assert parse_log(b"\0\n\0only\x1ftwo fields\0") == []


def test_read_commits_and_changed_files(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n", "gone.txt": "g\n", "bin.sh": "#!/bin/sh\n"})
    repo = find_repo(root)
    first = git(root, "rev-parse", "HEAD").strip()
    write(root, "a.txt", "a2\n")
    write(root, "new dir/ünï code.md", "x\n")
    git(root, "rm", "-q", "gone.txt")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "STORY-1: change", "-m", "Story: OPS-2\nGenesis-Session: s-9")
    second = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "side", first)
    write(root, "side.txt", "s\n")
    git(root, "add", "side.txt")
    git(root, "commit", "-q", "-m", "side")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "side")
    merge = git(root, "rev-parse", "HEAD").strip()

    commits = read_commits(repo, [second, first, merge])
    assert [c.sha for c in commits] == [second, first, merge]
    c2 = commits[0]
    assert (c2.subject, c2.parents, c2.author, c2.session_id) == (
        "STORY-1: change", [first], "Test User <test@example.com>", "s-9")
    assert c2.trailer_values("story") == ["OPS-2"]
    assert story_ids(c2, P) == ["STORY-1", "OPS-2"]
    assert commits[2].is_merge and not c2.is_merge
    assert read_commits(repo, []) == []

    files = changed_files(repo, commits)
    assert [(ch.path, ch.change_type) for ch in files[first]] == [
        ("a.txt", "added"), ("bin.sh", "added"), ("gone.txt", "added")]
    assert [(ch.path, ch.change_type) for ch in files[second]] == [
        ("a.txt", "updated"), ("gone.txt", "removed"), ("new dir/ünï code.md", "added")]
    removed = files[second][1]
    assert removed.blob == git(root, "rev-parse", f"{first}:gone.txt").strip()
    assert [(ch.path, ch.change_type) for ch in files[merge]] == [("side.txt", "added")]
    assert changed_files(repo, []) == {}
