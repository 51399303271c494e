"""The snapshot of a working tree as (path, blob SHA) pairs.

* ``git ls-files -s -z`` gives tracked, unchanged files and their blob SHAs:
  nothing is read for them.
* ``git status --porcelain -z`` names modified and untracked (not ignored)
  files; their blob SHA is computed from the working tree exactly as
  ``git hash-object`` does.  A dirty file whose size and mtime match the
  previous scan keeps its SHA without being read (git's own stat trick).
* Deleted files drop out; submodules and symlinks are kept with a skip reason.
"""

from __future__ import annotations

import os
import stat as statmod
from dataclasses import dataclass, field
from pathlib import Path

from genesis_git.git.repo import RawSnapshot, Repo, hash_blob
from genesis_git.index.classify import any_glob

SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"


@dataclass
class FileEntry:
    path: str
    sha: str
    dirty: bool = False
    mtime_ns: int | None = None
    size: int | None = None
    content: bytes | None = None  # kept when the file was read for hashing
    skip: str | None = None  # submodule | symlink | symlink outside repository


@dataclass
class Snapshot:
    entries: dict[str, FileEntry] = field(default_factory=dict)
    excluded: int = 0
    hashed: int = 0  # files read and hashed during this scan
    head: str | None = None  # HEAD when the index and the worktree were read


@dataclass
class PrevState:
    sha: str
    mtime_ns: int | None
    size: int | None


def _symlink_reason(root: Path, rel: str) -> str:
    full = root / rel
    try:
        target = full.resolve()
    except OSError:  # pragma: no cover - a resolution loop
        return "symlink outside repository"
    try:
        target.relative_to(root.resolve())
    except ValueError:
        return "symlink outside repository"
    return "symlink"


def _hash_from_disk(root: Path, entry: FileEntry, prev: PrevState | None, snap: Snapshot) -> bool:
    """Fill ``entry.sha`` from the working tree; False when the file vanished."""
    full = root / entry.path
    try:
        st = os.lstat(full)
    except OSError:
        return False
    entry.mtime_ns, entry.size = st.st_mtime_ns, st.st_size
    if statmod.S_ISLNK(st.st_mode):
        entry.sha = hash_blob(os.readlink(full).encode("utf-8", "surrogateescape"))
        entry.skip = _symlink_reason(root, entry.path)
        return True
    if statmod.S_ISDIR(st.st_mode):  # an untracked nested repository
        entry.skip = "submodule"
        entry.sha = "0" * 40
        return True
    if prev is not None and prev.mtime_ns == st.st_mtime_ns and prev.size == st.st_size:
        entry.sha = prev.sha
        return True
    try:
        data = full.read_bytes()
    except OSError:
        return False
    entry.sha = hash_blob(data)
    entry.content = data
    snap.hashed += 1
    return True


def scan(repo: Repo, include: list[str], exclude: list[str],
         previous: dict[str, PrevState] | None = None, raw: RawSnapshot | None = None) -> Snapshot:
    previous = previous or {}
    raw = raw if raw is not None else repo.snapshot()
    snap = Snapshot(head=raw.head)
    for e in raw.stage_entries():
        entry = FileEntry(e.path, e.sha)
        if e.mode == SUBMODULE_MODE:
            entry.skip = "submodule"
        elif e.mode == SYMLINK_MODE:
            entry.skip = _symlink_reason(repo.root, e.path)
        snap.entries[e.path] = entry
    for st in raw.status_entries():
        x, y = st.xy[0], st.xy[1]
        path = st.path
        if path.endswith("/"):
            continue
        if y == "D" or (x == "D" and y == " "):
            snap.entries.pop(path, None)
            continue
        if st.xy == "??" or y in "MTAU" or x == "U":
            entry = snap.entries.get(path) or FileEntry(path, "")
            entry.dirty = True
            entry.skip = None
            if _hash_from_disk(repo.root, entry, previous.get(path), snap):
                snap.entries[path] = entry
            else:
                snap.entries.pop(path, None)
        elif x in "AMRCT" and path in snap.entries:
            snap.entries[path].dirty = True
    if include or exclude:
        for path in list(snap.entries):
            if (include and not any_glob(path, include)) or (exclude and any_glob(path, exclude)):
                del snap.entries[path]
                snap.excluded += 1
    return snap
