"""A killed ``session start`` and two concurrent ones, with real processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genesis_git.index.indexer import BATCH, PAUSE_VAR
from genesis_git.index.pool import POOL_WINDOW

from helpers import git, make_repo, read_pty

pytestmark = pytest.mark.slow  # each test indexes hundreds of files in real processes


def _big_repo(root: Path, n: int = 600) -> Path:
    files = {}
    for i in range(n):
        body = "\n\n".join(
            f"def function_{i}_{j}(order_id, customer):\n"
            f"    '''Handle order {i} step {j} for the customer.'''\n"
            f"    total = order_id * {j} + {i}\n"
            f"    return total, customer\n" for j in range(12))
        files[f"pkg{i % 7}/module_{i}.py"] = body
    return make_repo(root, files)


def _genesis(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "genesis_git", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def _consistent(db: Path) -> tuple[int, int]:
    """Every mapped blob is whole: its chunk count equals the recorded one."""
    conn = sqlite3.connect(db)
    bad = conn.execute(
        "SELECT b.id FROM rag_blob_cache b LEFT JOIN rag_chunk_cache c ON c.blob_id = b.id "
        "GROUP BY b.id HAVING COUNT(c.id) <> b.n_chunks").fetchall()
    assert bad == []
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    blobs = conn.execute("SELECT COUNT(*) FROM rag_blob_cache").fetchone()[0]
    mapped = conn.execute("SELECT COUNT(*) FROM rag_session_chunk_map").fetchone()[0]
    conn.close()
    return blobs, mapped


def test_sigkill_during_start_leaves_a_store_the_next_run_completes(
        tmp_path: Path, genesis_env: Path) -> None:
    root = _big_repo(tmp_path / "big")
    db = genesis_env / "genesis.db"
    paused = tmp_path / "first-batch-committed"
    proc = _genesis(root, "session", "start", "--json", env={PAUSE_VAR: str(paused)})
    deadline = time.monotonic() + 120
    while not paused.exists():  # the indexer waits there once its first batch is committed
        assert proc.poll() is None, "session start ended before its first batch: " + str(
            proc.communicate())
        assert time.monotonic() < deadline, "no batch was committed within 120 s"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    # its output pipes close only when its worker processes have gone too
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    blobs, mapped = _consistent(db)
    # the first batch, and at most the batches that workers had in hand
    assert BATCH <= blobs <= (POOL_WINDOW + 1) * BATCH < 600
    assert mapped == 0  # the map is written after the blobs: nothing half-mapped
    done = _genesis(root, "session", "start", "--json")
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err
    report = json.loads(out)
    assert report["started"] is False  # the killed session is resumed
    assert report["files"] == 600
    assert report["hits"] >= blobs and report["hits"] + report["misses"] == 600
    assert _consistent(db) == (600, 600)


def test_two_worktrees_start_at_once_and_share_the_cache(tmp_path: Path, genesis_env: Path) -> None:
    root = _big_repo(tmp_path / "main", n=200)
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "other")
    a = _genesis(root, "session", "start", "--json")
    b = _genesis(tmp_path / "wt", "session", "start", "--json")
    out_a, err_a = a.communicate(timeout=120)
    out_b, err_b = b.communicate(timeout=120)
    assert a.returncode == 0, err_a
    assert b.returncode == 0, err_b
    ra, rb = json.loads(out_a), json.loads(out_b)
    assert ra["session"] != rb["session"]
    assert ra["files"] == rb["files"] == 200
    blobs, mapped = _consistent(genesis_env / "genesis.db")
    assert blobs == 200  # one cache: each blob stored once
    assert mapped == 400


def test_progress_bar_on_a_terminal_only(tmp_path: Path, genesis_env: Path) -> None:
    import pty

    root = _big_repo(tmp_path / "tty", n=260)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "genesis_git", "session", "start", "--json"],
                            cwd=root, stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "TERM": "xterm", "COLUMNS": "100",
                                 "GENESIS_TEST_PROGRESS_DELAY": "0"})  # a bar at once
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    shown = read_pty(master)
    assert proc.returncode == 0
    assert json.loads(out)["misses"] == 260  # stdout stays clean JSON
    assert b"indexing" in shown
    piped = subprocess.run([sys.executable, "-m", "genesis_git", "session", "start", "--new"],
                           cwd=root, capture_output=True, text=True)
    assert piped.stderr == ""  # no bar when stderr is not a terminal
