"""The one door to git (genesis_git.kernel.gitrun): both runners give the same results and
the same errors, in a real repository with the real git."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from genesis_git.git.repo import find_repo, run_git
from genesis_git.kernel import gitrun
from genesis_git.kernel.errors import EnvironmentProblem, ExitCode, GenesisError
from genesis_git.kernel.gitrun import SPAWN, SUBPROCESS, GitError, GitRunner

from helpers import git, write

RUNNERS = pytest.mark.parametrize("runner", [SPAWN, SUBPROCESS], ids=["spawn", "subprocess"])


def _blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@RUNNERS
def test_input_and_output_larger_than_a_pipe_pass_whole(repo: Path, runner: GitRunner) -> None:
    big = os.urandom(300_000)
    res = gitrun.run_git(["hash-object", "-w", "--stdin"], repo, input=big, runner=runner)
    assert (res.returncode, res.stderr) == (0, b"")
    assert res.stdout.decode().strip() == _blob_sha(big)
    res = gitrun.run_git(["cat-file", "--batch"], repo, input=(_blob_sha(big) + "\n").encode(),
                         runner=runner)
    assert res.stdout == f"{_blob_sha(big)} blob {len(big)}\n".encode() + big + b"\n"
    res = gitrun.run_git(["hash-object", "--stdin"], repo, input=b"", runner=runner)
    assert res.stdout.decode().strip() == _blob_sha(b"")


@RUNNERS
def test_the_working_directory_is_the_one_given(repo: Path, tmp_path: Path,
                                                runner: GitRunner) -> None:
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q")
    out = gitrun.run_git(["rev-parse", "--show-toplevel"], elsewhere, runner=runner).stdout
    assert Path(out.decode().strip()).resolve() == elsewhere.resolve()
    out = gitrun.run_git(["rev-parse", "--show-toplevel"], runner=runner).stdout  # the cwd
    assert Path(out.decode().strip()).resolve() == repo.resolve()


@RUNNERS
def test_a_failure_is_one_git_error_with_the_command_status_and_git_s_message(
        repo: Path, runner: GitRunner) -> None:
    with pytest.raises(GitError) as caught:
        gitrun.run_git(["rev-parse", "--verify", "no-such-ref"], repo, runner=runner)
    err = caught.value
    assert isinstance(err, GenesisError) and err.exit_code == ExitCode.USER_ERROR
    assert str(err) == "git rev-parse --verify failed: fatal: Needed a single revision"
    assert err.command == ("rev-parse", "--verify", "no-such-ref")
    assert (err.status, err.detail, err.timed_out) == (
        128, "fatal: Needed a single revision", False)
    res = gitrun.run_git(["rev-parse", "--verify", "no-such-ref"], repo, check=False,
                         runner=runner)
    assert res.returncode == 128 and res.stderr.startswith(b"fatal: ")
    with pytest.raises(GitError, match=r"^git cat-file failed: "):
        gitrun.run_git(["cat-file", "-p", "nope"], repo, runner=runner, name="cat-file")


@RUNNERS
def test_a_command_past_its_timeout_is_stopped_with_a_git_error(
        repo: Path, tmp_path: Path, runner: GitRunner) -> None:
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)  # git waits to open it for as long as nobody writes
    start = time.monotonic()
    with pytest.raises(GitError, match="gave no answer within 0.2 s") as caught:
        gitrun.run_git(["config", "--file", str(fifo), "--list"], repo, runner=runner,
                       timeout=0.2, check=False)
    assert caught.value.timed_out and caught.value.status is None
    assert time.monotonic() - start < 5
    fast = gitrun.run_git(["rev-parse", "HEAD"], repo, runner=runner, timeout=30)
    assert len(fast.stdout.strip()) == 40


@RUNNERS
def test_a_missing_git_is_an_environment_problem(repo: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 runner: GitRunner) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(EnvironmentProblem, match="git is not installed or not on PATH"):
        gitrun.run_git(["--version"], repo, runner=runner)


def test_one_environment_policy_drops_inherited_git_variables_and_keeps_the_pinned_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/elsewhere/.git")
    monkeypatch.setenv("GIT_INDEX_FILE", "/elsewhere/.git/index.lock")
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -i key")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ana")
    env = gitrun.no_git_env({"GIT_INDEX_FILE": "/tmp/ledger-index", "EXTRA": "1"})
    assert "GIT_DIR" not in env
    assert env["GIT_INDEX_FILE"] == "/tmp/ledger-index" and env["EXTRA"] == "1"
    assert (env["GIT_SSH_COMMAND"], env["GIT_AUTHOR_NAME"]) == ("ssh -i key", "Ana")
    assert env["PATH"] == os.environ["PATH"]


@RUNNERS
def test_an_inherited_git_dir_reaches_only_commands_run_in_the_caller_s_environment(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: GitRunner) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    inherited = gitrun.run_git(["rev-parse", "--absolute-git-dir"], repo, runner=runner).stdout
    cleaned = gitrun.run_git(["rev-parse", "--absolute-git-dir"], repo, runner=runner,
                             env=gitrun.no_git_env()).stdout
    assert Path(inherited.decode().strip()).resolve() == (other / ".git").resolve()
    assert Path(cleaned.decode().strip()).resolve() == (repo / ".git").resolve()


def test_the_repository_s_commands_go_through_the_door(repo: Path) -> None:
    write(repo, "a.txt", "one\n")
    git(repo, "add", "a.txt")
    full = find_repo(repo)
    assert b"a.txt\n" in full.git("ls-files")
    with pytest.raises(GitError, match="git log --nope failed: ") as caught:
        full.git("log", "--nope")
    assert caught.value.command == ("log", "--nope")
    assert b"A  a.txt\0" in run_git(["status", "--porcelain", "-z"], repo).stdout
