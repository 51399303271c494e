"""Lock files that the kernel releases when their holder dies (``fcntl.flock``).

A lock is an exclusive ``flock`` on a file.  The holder deletes the file when
it lets go, so a folder holds a lock file only while someone works in it; a
process that dies holding a lock leaves the file behind, but not the lock,
and the next taker simply takes it.  A taker that opened a file which the
holder deleted meanwhile notices (the inode at the path changed) and tries
again, so two processes never both believe they hold the lock.

Standard library only: the hooks' runtime may use it.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

POLL = 0.05


class Busy(Exception):
    """Another process held the lock for longer than the caller would wait."""


def try_lock(path: str | os.PathLike[str]) -> int | None:
    """Take the lock at ``path`` now: the descriptor that holds it, or ``None`` when it is held."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder we waited for deleted this file: take the new one


def release(path: str | os.PathLike[str], fd: int) -> None:
    """Let go of a lock taken with :func:`try_lock` (or inherited), deleting its file."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


@contextmanager
def hold(path: str | os.PathLike[str], timeout: float = 10.0) -> Iterator[None]:
    """Hold the lock at ``path`` for the block, waiting up to ``timeout`` seconds for it."""
    deadline = time.monotonic() + timeout
    while (fd := try_lock(path)) is None:
        if time.monotonic() >= deadline:
            raise Busy(os.fspath(path))
        time.sleep(POLL)
    try:
        yield
    finally:
        release(path, fd)


def held(path: str | os.PathLike[str]) -> bool:
    """Whether a live process holds the lock at ``path`` (a file without a holder is no lock)."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing lets go of a lock taken just to look
    return False
