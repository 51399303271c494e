"""The repository: where it is, what git says of its working tree, its blobs and its log.

Every git process goes through the one door, :mod:`genesis_git.kernel.gitrun` (its
subprocess runner here), with ``-z`` output wherever paths are involved, so that paths
with spaces, unicode or newlines survive.  GitPython is used here and nowhere else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from genesis_git.git.statusindex import PLAIN_STATUS, renew, status_command, version_of
from genesis_git.kernel.errors import EnvironmentProblem, GenesisError
from genesis_git.kernel.gitlog import LogCommit, log_args, split_log
from genesis_git.kernel.gitrun import SUBPROCESS, GitError, GitResult, git_failed
from genesis_git.kernel.gitrun import run_git as _run_git
from genesis_git.kernel.storepath import project_id as base_project_id
from genesis_git.kernel.storepath import store_dir

if TYPE_CHECKING:
    import subprocess


def hash_blob(data: bytes) -> str:
    """The blob SHA that ``git hash-object`` gives for ``data``."""
    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


_LS_FILES = ("ls-files", "-s", "-z")
_STATUS = PLAIN_STATUS  # over the store's copy of the index when it can be (status_command)
_HEAD = ("rev-parse", "--verify", "-q", "HEAD")
_SNAPSHOT = (_HEAD, _LS_FILES, _STATUS)
_OPTIONAL = (True, False, False)  # a repository without commits has no HEAD
# what a snapshot started: the commands asked, their processes, the file states their
# answers depend on, and the copy of the index git status runs over (or None)
_Pending = tuple[list[int], list["subprocess.Popen[bytes]"], list[object], "Path | None"]


def _spawn_git(commands: Sequence[Sequence[str]], cwd: Path | str,
               envs: Sequence[Mapping[str, str] | None] = ()) -> list[subprocess.Popen[bytes]]:
    """Start several git commands at once (each in its environment of ``envs``, when
    given); :func:`_collect_git` waits for them."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for i, args in enumerate(commands):
            procs.append(SUBPROCESS.start(args, cwd, env=envs[i] if envs else None))
    except EnvironmentProblem:
        for proc in procs:  # pragma: no cover - git vanished between two calls
            proc.kill()
            proc.wait()
        raise
    return procs


def _collect_git(commands: Sequence[Sequence[str]], procs: Sequence[subprocess.Popen[bytes]],
                 optional: Sequence[bool]) -> list[bytes | None]:
    """The standard output of each process; ``None`` for an optional one that failed."""
    outputs = [proc.communicate() for proc in procs]
    result: list[bytes | None] = []
    for args, proc, (out, err), may_fail in zip(commands, procs, outputs, optional, strict=True):
        if proc.returncode == 0:
            result.append(out)
        elif may_fail:
            result.append(None)
        else:
            name = " ".join(a for a in args[:3] if not a.startswith("--"))
            raise git_failed(args, proc.returncode, err, name)
    return result


def run_git(args: Sequence[str], cwd: Path | str, *, input: bytes | None = None,
            env: Mapping[str, str] | None = None, check: bool = True,
            timeout: float | None = None) -> GitResult:
    """``git args`` in ``cwd``, its output captured; with ``check``, a failure is one
    :class:`~genesis_git.kernel.gitrun.GitError` line.  A command that outlives ``timeout``
    raises one with ``timed_out`` set (a network command that hangs)."""
    return _run_git(args, cwd, input=input, env=env, check=check, timeout=timeout)


def git_version() -> tuple[int, ...]:
    out = run_git(["--version"], cwd=".").stdout.decode().strip()
    digits = out.split()[2] if len(out.split()) > 2 else "0"
    parts = []
    for piece in digits.split("."):
        if not piece.isdigit():
            break
        parts.append(int(piece))
    return tuple(parts)


@dataclass(frozen=True)
class StageEntry:
    mode: str
    sha: str
    path: str


@dataclass(frozen=True)
class StatusEntry:
    xy: str
    path: str


@dataclass
class RawSnapshot:
    """What git says of the working tree at one moment, unparsed."""

    head: str | None
    stage: bytes  # git ls-files -s -z
    status: bytes  # git status --porcelain=v1 -z

    def stage_entries(self) -> list[StageEntry]:
        return _parse_stage(self.stage)

    def status_entries(self) -> list[StatusEntry]:
        return _parse_status(self.status)


@dataclass
class Repo:
    root: Path
    git_dir: Path
    common_dir: Path
    _pending: _Pending | None = field(default=None, repr=False, compare=False)
    # the last output of HEAD and ls-files with the file state it was read from, so that a
    # long-lived process (the MCP server) runs only git status while neither changed
    _kept: dict[int, tuple[object, bytes | None]] = field(default_factory=dict, repr=False,
                                                          compare=False)

    # -- plumbing -------------------------------------------------------
    def git(self, *args: str, input: bytes | None = None, check: bool = True,
            env: Mapping[str, str] | None = None) -> bytes:
        return run_git(list(args), self.root, input=input, check=check, env=env).stdout

    def git_text(self, *args: str, check: bool = True) -> str:
        return self.git(*args, check=check).decode("utf-8", "replace")

    def worktree_listing(self) -> str:
        """``git worktree list --porcelain`` (read with GitPython)."""
        import git

        try:
            return str(git.Repo(self.root).git.worktree("list", "--porcelain"))
        except git.GitError as exc:  # pragma: no cover - git itself works when this is asked
            raise GitError(str(exc)) from None

    def log(self, fmt: str, *revs: str, options: Sequence[str] = (),
            names: bool = True) -> Iterator[LogCommit]:
        """The commits of ``git log`` over ``revs`` (with ``names``, ``--name-only``), newest
        first unless ``options`` say otherwise, streamed.

        ``fmt`` is a ``--format`` placeholder string for the header of each commit
        (``%ct``, ``%H%x02%B``); each :class:`~genesis_git.kernel.gitlog.LogCommit` holds that
        header as bytes and the paths the commit changed.  A caller that stops early
        stops git.  A revision git does not know ends the walk without an error.
        """
        proc = SUBPROCESS.start(log_args(fmt, revs, options, names), self.root, stderr=False)
        assert proc.stdout is not None
        out = proc.stdout
        try:
            yield from split_log(iter(lambda: out.read(1 << 16), b""))
        finally:
            out.close()
            if proc.poll() is None:
                proc.kill()
            proc.wait()

    # -- facts ------------------------------------------------------------
    def worktree_path(self, given: str, *, base: Path | None = None, name: str,
                      hint: str | None = None) -> str:
        """``given`` as the repository names it: relative to its root, with ``/``.

        A relative ``given`` is taken from ``base`` (default: the current folder, as git
        takes it); a path that resolves outside the root (``..``, a link leading out) or
        into ``.git`` is a usage error, ``{name} {given} is outside the repository``."""
        from genesis_git.kernel.errors import UsageError

        root = self.root.resolve()
        full = Path(given) if Path(given).is_absolute() else (base or Path.cwd()) / given
        try:
            rel = full.resolve().relative_to(root)
        except ValueError:
            raise UsageError(f"{name} {given} is outside the repository", hint=hint) from None
        if rel.parts and rel.parts[0] == ".git":
            raise UsageError(f"{name} {given} is inside .git, not the working tree", hint=hint)
        return rel.as_posix()

    @property
    def project_id(self) -> str:
        """Stable for a clone: the main worktree's folder name."""
        return base_project_id(str(self.common_dir))

    def head_sha(self) -> str | None:
        proc = run_git(["rev-parse", "--verify", "-q", "HEAD"], self.root, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def branch(self) -> str | None:
        proc = run_git(["symbolic-ref", "-q", "--short", "HEAD"], self.root, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def config_get(self, key: str) -> str | None:
        proc = run_git(["config", "--get", key], self.root, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def hooks_dir(self) -> Path:
        """The hooks folder of the common dir (ignores core.hooksPath)."""
        return self.common_dir / "hooks"

    def refresh_stat_cache(self) -> None:
        """Let git record its index's stat information again (``git update-index -q
        --refresh``), as ``git status`` does when it may take the index's lock.

        Right after a clone or checkout most entries are *racily clean* (written in the
        second the index was), and every later ``git status --no-optional-locks`` (the
        one a snapshot runs) hashes those files again: about 0.1 s on a sympy-sized tree,
        each search.  Changes nothing of the index's content; when git cannot (another git
        command holds the lock, the index is unreadable) nothing happens, which is harmless.
        """
        run_git(["update-index", "-q", "--refresh"], self.root, check=False)

    # -- snapshot -------------------------------------------------------
    def start_snapshot(self) -> None:
        """Start the git processes of the next :meth:`snapshot` now.

        They run on another core while this process goes on (importing numpy,
        opening the store); :meth:`snapshot` then only collects their output.
        """
        if self._pending is None:
            self._pending = self._spawn_snapshot()

    def _spawn_snapshot(self) -> _Pending:
        """The snapshot's git processes, without those whose answer this object already
        holds for the same state of the files it depends on (see :meth:`_state_of`), and
        the copy of the index git status runs over, if it does
        (:func:`~genesis_git.git.statusindex.status_command`)."""
        states = [self._state_of(i) for i in range(len(_SNAPSHOT))]
        todo = [i for i, st in enumerate(states)
                if st is None or i not in self._kept or self._kept[i][0] != st]
        commands: list[Sequence[str]] = [_SNAPSHOT[i] for i in todo]
        envs: list[Mapping[str, str] | None] = [None] * len(todo)
        copy = None
        if todo and _SNAPSHOT[todo[-1]] is _STATUS:
            commands[-1], envs[-1] = status_command(
                self.git_dir, self.common_dir, Path(store_dir(str(self.common_dir))))
            copy = Path(envs[-1]["GIT_INDEX_FILE"]) if envs[-1] is not None else None
        return todo, _spawn_git(commands, self.root, envs), states, copy

    def _state_of(self, which: int) -> object:
        """What the output of ``_SNAPSHOT[which]`` depends on, as file stats; ``None`` when
        it must always be asked (git status, or a layout this does not read)."""
        if _SNAPSHOT[which] is _LS_FILES:
            return version_of(self.git_dir / "index")
        if _SNAPSHOT[which] is not _HEAD or (self.common_dir / "reftable").exists():
            return None
        try:
            head = (self.git_dir / "HEAD").read_bytes()
        except OSError:
            return None
        ref = head[5:].strip().decode("utf-8", "replace") if head.startswith(b"ref: ") else ""
        if ref and not ref.startswith("refs/"):
            return None
        try:
            if ref and (self.common_dir / ref).read_bytes().startswith(b"ref: "):
                return None  # a symbolic ref to a symbolic ref: ask git
        except OSError:
            pass  # packed, or the branch has no commit yet
        return (head, version_of(self.common_dir / ref) if ref else None,
                version_of(self.common_dir / "packed-refs"))

    def snapshot(self) -> RawSnapshot:
        """HEAD, the index's files (``git ls-files -s``) and the worktree's changes
        (``git status``), from git processes that run side by side.  HEAD and the index's
        files are asked again only when the files they come from changed."""
        (todo, procs, states, copy), self._pending = self._pending or self._spawn_snapshot(), None
        optional = [_OPTIONAL[i] or (_SNAPSHOT[i] is _STATUS and copy is not None) for i in todo]
        outputs = _collect_git([_SNAPSHOT[i] for i in todo], procs, optional)
        if copy is not None and outputs[-1] is None:  # git could not read the copy
            renew(copy, self.git_dir / "index")
            outputs[-1] = run_git(_STATUS, self.root).stdout
        for i, out in zip(todo, outputs, strict=True):
            self._kept[i] = (states[i], out)
        head, stage, status = (self._kept[i][1] for i in range(len(_SNAPSHOT)))
        assert stage is not None and status is not None
        return RawSnapshot(head.decode().strip() or None if head is not None else None,
                           stage, status)

    def cat_blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        """Contents of many blobs in one ``git cat-file --batch`` call."""
        if not shas:
            return {}
        out = self.git("cat-file", "--batch", input=("\n".join(shas) + "\n").encode())
        result: dict[str, bytes] = {}
        pos = 0
        while pos < len(out):
            nl = out.index(b"\n", pos)
            header = out[pos:nl].decode().split()
            pos = nl + 1
            if len(header) < 3 or header[1] == "missing":
                continue
            size = int(header[2])
            result[header[0]] = out[pos:pos + size]
            pos += size + 1
        return result


def find_repo(path: Path | str | None = None) -> Repo:
    """The repository that contains ``path`` (default: the current directory)."""
    cwd = Path(path) if path is not None else Path.cwd()
    if not cwd.exists():
        raise GenesisError(f"{cwd}: no such directory")
    # one git call in the usual case; a failure is asked again, part by part, to say why
    both = run_git(["rev-parse", "--is-bare-repository", "--git-dir", "--git-common-dir",
                    "--show-toplevel"], cwd, check=False)
    lines = both.stdout.decode().splitlines()
    if both.returncode == 0 and len(lines) == 4 and lines[0].strip() == "false":
        return Repo(root=Path(lines[3].strip()), git_dir=(cwd / lines[1]).resolve(),
                    common_dir=(cwd / lines[2]).resolve())
    proc = run_git(["rev-parse", "--is-bare-repository", "--git-dir", "--git-common-dir"],
                   cwd, check=False)
    if proc.returncode != 0:
        raise EnvironmentProblem(f"{cwd}: not a git repository",
                                 hint="run genesis inside a git working tree, or `git init` first")
    bare, git_dir, common_dir = proc.stdout.decode().splitlines()[:3]
    if bare.strip() == "true":
        raise EnvironmentProblem(f"{cwd}: a bare repository has no working tree to index",
                                 hint="run genesis in a clone or a `git worktree`")
    top = run_git(["rev-parse", "--show-toplevel"], cwd, check=False)
    if top.returncode != 0:
        raise EnvironmentProblem(f"{cwd}: inside the .git folder, not a working tree",
                                 hint="cd to the working tree")
    root = Path(top.stdout.decode().strip())
    return Repo(
        root=root,
        git_dir=(cwd / git_dir).resolve(),
        common_dir=(cwd / common_dir).resolve(),
    )


def _parse_stage(out: bytes) -> list[StageEntry]:
    """Tracked files of the index: mode, blob SHA, path (``git ls-files -s -z``)."""
    entries: list[StageEntry] = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, _, path = rec.partition(b"\t")
        mode, sha, stage = meta.decode().split(" ")
        if stage not in ("0", "2"):  # keep "ours" of a conflict only
            continue
        entries.append(StageEntry(mode, sha, path.decode("utf-8", "surrogateescape")))
    return entries


def _parse_status(out: bytes) -> list[StatusEntry]:
    """Worktree changes, untracked files included, ignored files not."""
    items = out.split(b"\0")
    entries: list[StatusEntry] = []
    i = 0
    while i < len(items):
        rec = items[i]
        i += 1
        if len(rec) < 4:
            continue
        xy = rec[:2].decode()
        entries.append(StatusEntry(xy, rec[3:].decode("utf-8", "surrogateescape")))
    return entries
