"""``Repo.log``: the one git log walker (last-modified times, impact history)."""

from __future__ import annotations

from pathlib import Path

from genesis_git.git.repo import find_repo

from helpers import git, make_repo, write


def test_log_streams_headers_and_paths_newest_first(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    write(root, "dir/with space.txt", "b\n")
    write(root, "new\nline.txt", "c\n")
    write(root, "ü.md", "d\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "second\n\nbody line\n")
    git(root, "commit", "-q", "--allow-empty", "-m", "empty")
    repo = find_repo(root)
    commits = list(repo.log("%s%x02%B", "HEAD"))
    assert [c.header.split(b"\x02")[0] for c in commits] == [b"empty", b"second", b"initial"]
    assert commits[0].paths == []
    assert sorted(commits[1].paths) == ["dir/with space.txt", "new\nline.txt", "ü.md"]
    assert commits[1].header.split(b"\x02")[1].decode().strip() == "second\n\nbody line"
    assert commits[2].paths == ["a.txt"]
    # a range, options, and an unknown revision (nothing, no error)
    assert [c.paths for c in repo.log("%ct", "HEAD~2..HEAD", options=("--no-merges",))][1] \
        == commits[1].paths
    assert list(repo.log("%H", "no-such-branch")) == []


def test_a_caller_that_stops_early_stops_git(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "0\n"})
    for i in range(1, 40):
        write(root, "a.txt", f"{i}\n" * 2000)
        git(root, "commit", "-q", "-am", f"change {i}")
    walk = find_repo(root).log("%ct", "HEAD")
    first = next(walk)
    assert first.paths == ["a.txt"] and int(first.header) > 0
    walk.close()  # the generator's cleanup kills and reaps git
    assert list(walk) == []
