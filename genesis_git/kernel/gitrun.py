"""The one door to git: every git process of genesis is started here.

* One environment policy: a command runs in the caller's environment, unless it is
  aimed at something other than the hook's own repository (or runs after the
  hook's command is over); then :func:`no_git_env` drops the inherited ``GIT_*``
  variables, keeping the identity, the config switches and the transport settings
  that tests and users pin.
* A command with a ``timeout`` runs in a session of its own, so that when the time is
  up the whole process group goes (``git`` and its transport: ``ssh``, a credential
  helper), not ``git`` alone while its children keep the pipes open.
* One runner protocol, :class:`GitRunner`: ``run(args, cwd, input, env, timeout)``
  gives a :class:`GitResult`.  :data:`SPAWN` starts git with ``os.posix_spawnp``
  (the hooks: ``subprocess`` costs more to import than a hook's work),
  :data:`SUBPROCESS` with :mod:`subprocess` (a working directory of its own, and
  :meth:`SubprocessRunner.start` for streamed or side-by-side processes).
* One error, :class:`GitError`, a :class:`~genesis_git.kernel.errors.GenesisError`
  that carries the command, its exit status and git's own message; a command that
  outlives its ``timeout`` is killed and raises one with ``timed_out`` set.  A
  missing git is an :class:`~genesis_git.kernel.errors.EnvironmentProblem`.

Standard library only, and nothing beyond ``os`` and ``select`` at load time.
"""

from __future__ import annotations

import os
import select
import time

from genesis_git.kernel.errors import EnvironmentProblem, GenesisError

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from typing import Any

KEEP_GIT_VARS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL",
                 "GIT_SSH", "GIT_SSH_COMMAND", "GIT_TERMINAL_PROMPT", "GIT_ASKPASS")


def no_git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without inherited ``GIT_*`` variables, plus ``extra``.

    Hooks run with ``GIT_DIR``, ``GIT_INDEX_FILE`` and friends set; any git
    call aimed at something other than the current repository, or made after
    the hook's own command is over, must not see them.  The identity, the config
    switches and the transport settings (ssh, askpass) that tests and users pin
    are kept.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({k: os.environ[k] for k in KEEP_GIT_VARS if k in os.environ})
    if extra:
        env.update(extra)
    return env


class GitResult:
    """What a finished git command gave: its arguments (without ``git``), exit status and
    both outputs."""

    __slots__ = ("args", "returncode", "stderr", "stdout")

    def __init__(self, args: Sequence[str], returncode: int, stdout: bytes,
                 stderr: bytes) -> None:
        self.args = tuple(args)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"GitResult({list(self.args)!r}, {self.returncode})"


class GitError(GenesisError):
    """A git command failed.  ``command`` is its arguments (without ``git``, empty for a
    failure of genesis's own use of git), ``status`` its exit status (``None`` when it did
    not exit by itself), ``detail`` the last line git wrote on stderr."""

    def __init__(self, message: str, *, command: Sequence[str] = (), status: int | None = None,
                 detail: str = "", timed_out: bool = False, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.command = tuple(command)
        self.status = status
        self.detail = detail
        self.timed_out = timed_out


def git_failed(args: Sequence[str], status: int, stderr: bytes,
               name: str | None = None) -> GitError:
    """One line: ``git <name> failed: <the last line git wrote on stderr>`` (its exit status
    when it wrote none); ``name`` defaults to the first two arguments."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    detail = lines[-1] if lines else ""
    label = " ".join(args[:2]) if name is None else name
    return GitError(f"git {label} failed: {detail or status}", command=args, status=status,
                    detail=detail)


def git_timed_out(args: Sequence[str], timeout: float | None) -> GitError:
    return GitError(f"git {' '.join(args[:1])} gave no answer within {timeout:g} s",
                    command=args, timed_out=True)


def git_missing() -> EnvironmentProblem:
    return EnvironmentProblem("git is not installed or not on PATH",
                              hint="install git 2.25 or newer")


def kill_group(pid: int) -> None:
    """SIGKILL the process group that ``pid`` leads (a command started with a timeout),
    else ``pid`` alone."""
    try:
        os.killpg(pid, 9)
    except OSError:
        try:
            os.kill(pid, 9)
        except OSError:
            pass


class GitRunner:
    """How a git process is started.  Each runner gives the same :class:`GitResult` and
    raises the same errors; they differ only in what they cost to load and start."""

    def run(self, args: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
            input: bytes | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None) -> GitResult:  # pragma: no cover - the protocol
        raise NotImplementedError


class SpawnRunner(GitRunner):
    """``os.posix_spawnp`` and pipes read with ``select``: no ``subprocess`` import.  A
    working directory other than the current one is given to git as ``-C``."""

    def run(self, args: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
            input: bytes | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None) -> GitResult:
        argv = ["git", *(("-C", os.fspath(cwd)) if cwd is not None else ()), *args]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if input is not None else (-1, -1)
        actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, out_w, 1),
                                          (os.POSIX_SPAWN_DUP2, err_w, 2)]
        if input is not None:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        try:
            pid = os.posix_spawnp("git", argv, dict(env) if env is not None else os.environ,
                                  file_actions=actions, setsid=timeout is not None)
        except FileNotFoundError:
            for fd in (out_r, err_r, in_w):
                if fd >= 0:
                    os.close(fd)
            raise git_missing() from None
        finally:
            for fd in (out_w, err_w, in_r):
                if fd >= 0:
                    os.close(fd)
        chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
        readers = [out_r, err_r]
        writers = [in_w] if input is not None else []
        pending = memoryview(input or b"")
        if writers:
            os.set_blocking(in_w, False)
            if not pending:
                os.close(in_w)
                writers = []
        deadline = None if timeout is None else time.monotonic() + timeout
        while readers or writers:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready_r, ready_w, _ = select.select(readers, writers, [], wait)
            if not ready_r and not ready_w:  # the time is up
                kill_group(pid)
                os.waitpid(pid, 0)
                for fd in readers + writers:
                    os.close(fd)
                raise git_timed_out(args, timeout)
            for fd in ready_w:
                try:
                    n = os.write(fd, pending[:65536])
                except BrokenPipeError:
                    n = len(pending)
                pending = pending[n:]
                if not pending:
                    os.close(fd)
                    writers = []
            for fd in ready_r:
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    os.close(fd)
                    readers.remove(fd)
        _, status = os.waitpid(pid, 0)
        return GitResult(args, os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]),
                         b"".join(chunks[err_r]))


class SubprocessRunner(GitRunner):
    """:mod:`subprocess` (imported on first use): a working directory of its own, and
    processes that stream their output or run side by side (:meth:`start`)."""

    def run(self, args: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
            input: bytes | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None) -> GitResult:
        import subprocess

        try:
            proc = subprocess.Popen(["git", *args], cwd=None if cwd is None else os.fspath(cwd),
                                    stdin=subprocess.PIPE if input is not None else None,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=dict(env) if env is not None else None,
                                    start_new_session=timeout is not None)
        except FileNotFoundError:
            raise git_missing() from None
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            proc.communicate()  # the pipes close once the whole group is gone
            raise git_timed_out(args, timeout) from None
        except BaseException:  # Ctrl-C: git and its transport go too
            if timeout is not None:
                kill_group(proc.pid)
            proc.kill()
            proc.wait()
            raise
        return GitResult(args, proc.returncode, out, err)

    def start(self, args: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
              stderr: bool = True, env: Mapping[str, str] | None = None
              ) -> subprocess.Popen[bytes]:
        """``git args`` started with its standard output piped (and its standard error, or
        thrown away without ``stderr``); the caller reads and waits."""
        import subprocess

        try:
            return subprocess.Popen(["git", *args], cwd=None if cwd is None else os.fspath(cwd),
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
                                    env=dict(env) if env is not None else None)
        except FileNotFoundError:
            raise git_missing() from None


SPAWN = SpawnRunner()
SUBPROCESS = SubprocessRunner()


def run_git(args: Sequence[str], cwd: str | os.PathLike[str] | None = None, *,
            input: bytes | None = None, env: Mapping[str, str] | None = None,
            check: bool = True, timeout: float | None = None,
            runner: GitRunner = SUBPROCESS, name: str | None = None) -> GitResult:
    """``git args`` in ``cwd`` (default: the current directory), its output captured.

    With ``check``, a non-zero exit raises :func:`git_failed`'s :class:`GitError`
    (``name`` is the command's name in its message).  A command still running after
    ``timeout`` seconds is killed and raises a :class:`GitError` with ``timed_out``,
    checked or not."""
    result = runner.run(args, cwd, input=input, env=env, timeout=timeout)
    if check and result.returncode != 0:
        raise git_failed(args, result.returncode, result.stderr, name)
    return result
