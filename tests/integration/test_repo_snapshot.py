"""``Repo.snapshot`` in a long-lived process: HEAD and the index's files are asked again
exactly when the files they come from change, and git status every time."""

from __future__ import annotations

from pathlib import Path

from genesis_git.git.repo import Repo, find_repo

from helpers import git, make_repo, write


def staged(repo: Repo) -> list[str]:
    return sorted(e.path for e in repo.snapshot().stage_entries())


def head(repo: Repo) -> str | None:
    return repo.snapshot().head


def test_every_change_of_head_or_the_index_is_seen_by_the_same_repo(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    repo = find_repo(root)
    first = head(repo)
    assert first == git(root, "rev-parse", "HEAD").strip() and staged(repo) == ["a.txt"]
    write(root, "b.txt", "b\n")
    assert staged(repo) == ["a.txt"]
    assert [e.path for e in repo.snapshot().status_entries()] == ["b.txt"]  # status: always
    git(root, "add", "b.txt")
    assert staged(repo) == ["a.txt", "b.txt"]
    git(root, "commit", "-q", "-m", "b")
    second = head(repo)
    assert second == git(root, "rev-parse", "HEAD").strip() != first
    git(root, "checkout", "-q", "-b", "other")
    git(root, "commit", "-q", "--allow-empty", "-m", "on other")
    assert head(repo) == git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    assert head(repo) == second
    git(root, "update-ref", "refs/heads/main", first)  # the branch moved, HEAD's file did not
    assert head(repo) == first
    git(root, "pack-refs", "--all")  # the loose ref goes into packed-refs
    git(root, "update-ref", "refs/heads/main", second)
    assert head(repo) == second
    git(root, "pack-refs", "--all")
    assert head(repo) == second
    git(root, "checkout", "-q", "--detach", first)
    assert head(repo) == first
    assert staged(repo) == ["a.txt"]
    git(root, "rm", "-q", "--cached", "a.txt")
    assert staged(repo) == []


def test_a_symbolic_ref_and_an_unborn_branch(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    repo = find_repo(root)
    git(root, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(root, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert head(repo) == git(root, "rev-parse", "HEAD").strip()
    git(root, "commit", "-q", "--allow-empty", "-m", "through the alias")
    assert head(repo) == git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "--orphan", "fresh")
    assert head(repo) is None
    git(root, "commit", "-q", "--allow-empty", "-m", "first of fresh")
    assert head(repo) == git(root, "rev-parse", "HEAD").strip()


def test_only_git_status_runs_while_nothing_changed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    repo = find_repo(root)
    repo.snapshot()
    todo, procs, _, _ = repo._spawn_snapshot()
    for proc in procs:
        proc.communicate()
    assert len(procs) == 1 and "status" in procs[0].args
    assert len(todo) == 1
