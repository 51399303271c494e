"""The git door ends a command past its timeout with its whole process group: a transport
(``ssh``) and what it started do not outlive it, with either runner."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from genesis_git.kernel import gitrun
from genesis_git.kernel.gitrun import SPAWN, SUBPROCESS, GitError, GitRunner

from helpers import hanging_ssh, survivors


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("runner", [SPAWN, SUBPROCESS], ids=["spawn", "subprocess"])
def test_a_hanging_transport_goes_with_git_at_the_timeout(repo: Path, tmp_path: Path,
                                                         runner: GitRunner) -> None:
    ssh, pids = hanging_ssh(tmp_path)
    env = dict(os.environ, GIT_SSH_COMMAND=str(ssh))
    start = time.monotonic()
    with pytest.raises(GitError) as caught:
        gitrun.run_git(["ls-remote", "ssh://git@example.invalid/team/app.git"], repo, env=env,
                       runner=runner, timeout=1)
    took = time.monotonic() - start
    assert caught.value.timed_out
    assert took < 5, took
    assert survivors(pids) == []
