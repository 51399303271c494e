"""The git door ends a command past its timeout with its whole process group: a transport
(``ssh``) and what it started do not outlive it, with either runner."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from genesis_git.kernel import gitrun
from genesis_git.kernel.gitrun import SPAWN, SUBPROCESS, GitError, GitRunner


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
@pytest.mark.parametrize("runner", [SPAWN, SUBPROCESS], ids=["spawn", "subprocess"])
def test_a_hanging_transport_goes_with_git_at_the_timeout(repo: Path, tmp_path: Path,
                                                         runner: GitRunner) -> None:
    pids = tmp_path / "pids"
    ssh = tmp_path / "slow-ssh"
    ssh.write_text(f"#!/bin/sh\nsleep 120 &\necho $! >> {pids}\necho $$ >> {pids}\nwait\n")
    ssh.chmod(0o755)
    env = dict(os.environ, GIT_SSH_COMMAND=str(ssh))
    start = time.monotonic()
    with pytest.raises(GitError) as caught:
        gitrun.run_git(["ls-remote", "ssh://git@example.invalid/team/app.git"], repo, env=env,
                       runner=runner, timeout=1)
    took = time.monotonic() - start
    assert caught.value.timed_out
    assert took < 5, took
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2
    end = time.monotonic() + 2
    while any(_alive(p) for p in started) and time.monotonic() < end:
        time.sleep(0.05)
    survivors = [p for p in started if _alive(p)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []
