"""``git status`` over a copy of the index that git may write, so that what it learns stays.

A snapshot asks ``git status --no-optional-locks``: beside the user's own git commands
genesis must never take ``index.lock``, so git may not write the index, and each call
walks every folder of the working tree again for untracked files (on a sympy-sized tree,
258 folders: 6 of its 12 ms).  Git's untracked cache (``core.untrackedCache``) skips
the folders whose modification time has not changed, but it lives in the index, and
only a git that may write the index keeps it.

So the status runs over a copy of the index in the store (``status/`` there), one per
worktree, with the cache turned on and ``GIT_INDEX_FILE`` pointing at it: git writes the
copy (its own lock, ``<copy>.lock``, never the user's), keeps the cache and the refreshed
stat information in it, and reads it back on the next call (the walk: 1 ms).  What git
says is the same as over the index itself:

* the copy is of one version of the index, named by that version's identity (inode, size,
  times: git replaces its index by renaming a new file into place), so a later version
  is copied anew under its own name and never mistaken for the older one; a version that
  changes while it is read is not used;
* the copy keeps the index's modification time, so that an entry git must look at again
  (*racily clean*: its file changed in the tick the index was written) still is one;
* git's own checks keep the cache right: a folder whose time changed is read again, and
  an ignore rule that changed drops what it covered;
* a copy is never removed while a process may be about to run git over it (git reads a
  missing index file as an empty index): the copies of older versions go once the index
  has not changed for :data:`SETTLED_NS`, and a copy git cannot read is replaced by a
  new copy, not removed.

The plain ``--no-optional-locks`` status runs instead when git is told which index to
use (``GIT_INDEX_FILE``: a hook of a commit, whose index is a temporary one), when the
index is split (its entries are in a shared file of the git folder, which git would
write again), when there is no store folder or no index yet, and when the copy cannot be made;
when git cannot read the copy, the status is asked again over the index itself
(:meth:`~genesis_git.git.repo.Repo.snapshot`).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

STATUS_ARGS = ("status", "--porcelain=v1", "-z", "--untracked-files=all",
               "--ignore-submodules=all", "--no-renames")
# --no-optional-locks: a refresh never takes index.lock, so it cannot make the user's
# own git command fail while genesis runs beside it
PLAIN_STATUS = ("--no-optional-locks", *STATUS_ARGS)
# the cache is kept for the flags of one mode, which git reads from
# status.showUntrackedFiles, not from --untracked-files; and the copy is never split
CACHED_STATUS = ("-c", "core.untrackedCache=true", "-c", "status.showUntrackedFiles=all",
                 "-c", "core.splitIndex=false", *STATUS_ARGS)
FOLDER = "status"
# the copies of an older version of the index are removed only once the index has not
# changed for this long: a process that saw the older version has opened its copy by then
# (git reads a missing index file as an empty one, so a copy must never vanish under it)
SETTLED_NS = 300 * 10**9


def status_command(git_dir: Path, common_dir: Path, store: Path
                   ) -> tuple[tuple[str, ...], dict[str, str] | None]:
    """The status's arguments and environment (``None``: the caller's) for the worktree
    whose git folder is ``git_dir`` (of the repository whose common folder is
    ``common_dir``), with its copy of the index under ``store``."""
    if "GIT_INDEX_FILE" in os.environ or not store.is_dir():
        return PLAIN_STATUS, None
    copy = _copy_of(git_dir / "index", store / FOLDER, _worktree_key(common_dir, git_dir))
    if copy is None:
        return PLAIN_STATUS, None
    return CACHED_STATUS, {**os.environ, "GIT_INDEX_FILE": str(copy)}


def gone_copies(common_dir: Path, store: Path) -> list[Path]:
    """The copies of this repository's worktrees that are gone (``git worktree remove``
    or ``prune``): the copies of other repositories' worktrees (``GENESIS_HOME`` shared)
    are not this repository's to judge."""
    folder = store / FOLDER
    if not folder.is_dir():
        return []
    worktrees = common_dir / "worktrees"
    git_dirs = [common_dir, *(worktrees.iterdir() if worktrees.is_dir() else ())]
    live = {_worktree_key(common_dir, d) for d in git_dirs}
    mine = _key(common_dir) + "."
    return sorted(p for p in folder.iterdir()
                  if p.name.startswith(mine) and p.name.split("-", 1)[0] not in live)


def _worktree_key(common_dir: Path, git_dir: Path) -> str:
    """A name for one worktree's copies: a store serves every worktree of a clone, and
    ``GENESIS_HOME`` may serve several repositories."""
    return f"{_key(common_dir)}.{_key(git_dir)}"


def _key(folder: Path) -> str:
    return hashlib.sha1(os.fsencode(folder.resolve())).hexdigest()[:12]


def _copy_of(index: Path, folder: Path, worktree: str) -> Path | None:
    """The copy of ``index``'s present version, made when there is none yet (the copies
    of other versions are removed then); ``None`` when it cannot be used."""
    try:
        st = index.stat()
        version = _version(st)
        copy = folder / f"{worktree}-{'-'.join(map(str, version))}.index"
        if copy.is_file():
            _settle(folder, worktree, copy, st)
            return copy
        if any(index.parent.glob("sharedindex.*")):
            return None  # a split index: its entries are in a file of the git folder
        data = index.read_bytes()
        if _version(index.stat()) != version:  # pragma: no cover - a race with git
            return None  # being replaced while read
        folder.mkdir(exist_ok=True)
        _write(copy, data, st)
    except OSError:
        return None
    _settle(folder, worktree, copy, st)
    return copy


def _settle(folder: Path, worktree: str, copy: Path, st: os.stat_result) -> None:
    """Remove the worktree's copies of older versions of the index (their locks and part
    files too) once it has not changed for :data:`SETTLED_NS`."""
    if time.time_ns() - st.st_ctime_ns <= SETTLED_NS:
        return  # a process that saw an older version may not have opened its copy yet
    for old in folder.glob(f"{worktree}-*"):
        if not old.name.startswith(copy.name):
            drop(old)


def renew(copy: Path, index: Path) -> None:
    """Put a new copy of ``index`` in place of ``copy``, which git could not read, when
    the index is still the version it was copied from (a copy is replaced, never removed:
    a process about to run git over it must never find it missing, where git would read
    an empty index)."""
    try:
        st = index.stat()
        if copy.name.endswith(f"-{'-'.join(map(str, _version(st)))}.index"):
            _write(copy, index.read_bytes(), st)
    except OSError:
        return


def _write(copy: Path, data: bytes, st: os.stat_result) -> None:
    """``data`` (the index whose stat is ``st``) put at ``copy`` in one step, with the
    index's times; the part file of each writer is its own, and goes when it fails."""
    part = copy.with_name(f"{copy.name}.{os.urandom(6).hex()}.part")
    try:
        with open(part, "xb") as out:
            out.write(data)
        os.utime(part, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(part, copy)
    except OSError:
        drop(part)
        raise


def copies(store: Path) -> list[Path]:
    """Every copy of an index the store keeps (of any worktree or repository)."""
    folder = store / FOLDER
    return sorted(folder.glob("*.index")) if folder.is_dir() else []


def drop(path: Path) -> None:
    """Remove a copy (or what git or a writer left beside it); gone already is as good."""
    try:
        path.unlink()
    except OSError:
        pass


def version_of(path: Path) -> tuple[int, int, int, int] | None:
    """A file's identity and version (inode, size, modification and change times): git
    replaces its index and refs by renaming a new file into place, so a rewrite changes
    the inode and the times; ``None`` when there is no such file."""
    try:
        return _version(path.stat())
    except OSError:
        return None


def _version(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
