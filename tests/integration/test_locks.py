"""``genesis_git.kernel.locks``: flock-based lock files that a dead holder cannot keep."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.kernel import locks


def test_hold_waits_then_gives_up_and_cleans_up(tmp_path: Path) -> None:
    lock = tmp_path / "sub" / ".lock"
    with locks.hold(lock):
        assert lock.exists()
        with pytest.raises(locks.Busy), locks.hold(lock, timeout=0.1):
            pass  # pragma: no cover - never reached
    assert not lock.exists()
    with locks.hold(lock, timeout=0):  # free: taken at once even without waiting
        pass


def test_a_file_left_by_a_dead_holder_is_no_lock(tmp_path: Path) -> None:
    lock = tmp_path / ".lock"
    code = ("import os, sys; from genesis_git.kernel import locks; "
            "fd = locks.try_lock(sys.argv[1]); os._exit(0 if fd is not None else 1)")
    assert subprocess.run([sys.executable, "-c", code, str(lock)]).returncode == 0
    assert lock.exists()  # it died without letting go
    fd = locks.try_lock(lock)
    assert fd is not None
    locks.release(lock, fd)


def test_a_taker_of_a_deleted_file_takes_the_new_one(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    lock = tmp_path / ".lock"
    real_stat = os.stat
    calls = []

    def stat_after_a_swap(path, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(path) == str(lock) and not calls:
            calls.append(path)  # the holder deleted the file and another process made a new one
            os.unlink(lock)
            lock.write_text("")
        return real_stat(path, *a, **k)

    monkeypatch.setattr(os, "stat", stat_after_a_swap)
    fd = locks.try_lock(lock)
    assert fd is not None and calls
    assert os.fstat(fd).st_ino == real_stat(lock).st_ino  # it holds the file at the path
    locks.release(lock, fd)


def test_held_tells_a_live_holder_from_a_left_file(tmp_path: Path) -> None:
    lock = tmp_path / ".lock"
    assert not locks.held(lock)  # no file
    fd = locks.try_lock(lock)
    assert fd is not None and locks.held(lock)
    assert locks.held(lock)  # looking does not take it away
    locks.release(lock, fd)
    lock.write_text("")
    assert not locks.held(lock)  # a file nobody holds
    fd = locks.try_lock(lock)  # and looking left it free
    assert fd is not None
    locks.release(lock, fd)
