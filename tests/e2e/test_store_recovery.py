"""doctor and recovery on real stores: read-only, misplaced, recreated empty, damaged."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.store.connect import connect

from helpers import commit_files, genesis_cmd

runner = CliRunner()


def _setup(root: Path, home: Path) -> None:
    inst.install(find_repo(root), python=sys.executable)
    conn = connect(home / "genesis.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES "
                 "('s-1', 'repo', ?, 'active')", (str(root),))
    conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, summary) "
                 "VALUES ('s-1', 'repo', 'decision', 'keep the discount in cents')")
    conn.close()


def _checks(output: str) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in json.loads(output)["checks"]}


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(not _unshare_works(),
                    reason="making a folder read-only for root needs a mount namespace "
                           "(unshare -m), which this machine refuses")
def test_doctor_keeps_a_healthy_read_only_store(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "STORY-1: a", {"a.txt": "a\n"})
    home = shlex.quote(str(genesis_env))
    doctor = " ".join(shlex.quote(a) for a in [*genesis_cmd(), "doctor", "--json"])
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c",
         f"mount --bind {home} {home} && mount -o remount,ro,bind {home} && {doctor}"],
        capture_output=True, text=True, timeout=120)
    store = _checks(proc.stdout)["store"]
    assert store["status"] == "warn", store
    assert "read-only (integrity ok)" in store["message"]
    assert "move" not in store["fix"] and "genesis init" not in store["fix"]
    assert "chmod u+w" in store["fix"]


def test_doctor_on_genesis_home_pointing_at_a_file(repo: Path, tmp_path: Path) -> None:
    afile = tmp_path / "not-a-folder"
    afile.write_text("x")
    proc = _run("doctor", "--json", env=dict(os.environ, GENESIS_HOME=str(afile)))
    assert proc.returncode != 0
    store = _checks(proc.stdout)["store"]
    assert store["status"] == "error"
    assert store["message"].startswith(f"GENESIS_HOME={afile} is a file, not a folder")
    proc = _run("doctor", env=dict(os.environ, GENESIS_HOME=str(afile)))
    assert "all checks passed" not in proc.stdout


def test_doctor_notices_a_store_recreated_empty_by_a_hook(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "STORY-1: a", {"a.txt": "a\n"})
    commit_files(repo, "STORY-2: b", {"b.txt": "b\n"})
    for name in ("genesis.db", "genesis.db-wal", "genesis.db-shm"):
        (genesis_env / name).unlink(missing_ok=True)
    commit_files(repo, "STORY-3: c", {"c.txt": "c\n"})  # post-commit creates a new store
    assert (genesis_env / "genesis.db").exists()
    res = runner.invoke(app, ["doctor", "--json"])
    ledger = _checks(res.output)["ledger"]
    assert ledger["status"] == "warn"
    assert ledger["message"].startswith("2 story commit(s) in git history are not in the ledger")
    assert "1 Genesis-Session trailer(s) name sessions the store does not know" in \
        ledger["message"]
    assert "genesis story rebuild" in ledger["fix"]
    assert runner.invoke(app, ["story", "rebuild"]).exit_code == 0
    assert _checks(runner.invoke(app, ["doctor", "--json"]).output)["ledger"]["status"] == "ok"


JUNK = bytes((i * 131 + 7) % 256 for i in range(4096))


def _damage(db: Path, tables: tuple[str, ...]) -> None:
    """4 KiB of junk over each table's root page, as a stray write leaves."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = [conn.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (t,))
                 .fetchone()[0] for t in tables]
    finally:
        conn.close()
    with db.open("r+b") as fh:
        for root in roots:
            fh.seek((root - 1) * size)
            fh.write(JUNK)


def test_doctor_shows_the_first_problems_and_a_count(repo: Path, genesis_env: Path) -> None:
    conn = connect(genesis_env / "genesis.db")
    conn.executemany("INSERT INTO genesis_kv(key, value) VALUES (?, ?)",
                     [(f"k{i:05d}", "v" * 40) for i in range(4000)])
    conn.close()
    db = genesis_env / "genesis.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    pages = db.stat().st_size // page
    with db.open("r+b") as fh:  # the middle pages, past their headers: their cell pointers
        for n in range(pages // 4, pages * 3 // 4):
            fh.seek(n * page + 100)
            fh.write(JUNK[:512])
    proc = _run("doctor")
    assert proc.returncode == 1
    store = [ln for ln in proc.stdout.splitlines() if "store:" in ln]
    assert len(store) == 1, proc.stdout
    assert "integrity check failed," in store[0] and " more" in store[0]
    assert store[0].count("out of range") <= 3
    assert len(proc.stdout.splitlines()) < 25
    assert "--from-scratch" in proc.stdout


def test_a_damaged_store_is_one_line_and_rebuilds_from_scratch(repo: Path,
                                                               genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    for i in range(12):
        commit_files(repo, f"STORY-{i}: change {i}", {f"f{i}.txt": f"{i}\n"})
    db = genesis_env / "genesis.db"
    _damage(db, ("story_links", "story_records", "sessions"))
    for args in (["story", "rebuild"], ["search", "change"], ["story", "list"],
                 ["story", "context", "STORY-1"]):
        proc = _run(*args)
        assert proc.returncode == 1, (args, proc.stderr)
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
        assert "is corrupt" in proc.stderr and "internal error" not in proc.stderr
    proc = _run("doctor")
    store = [ln for ln in proc.stdout.splitlines() if "store:" in ln]
    assert len(store) == 1 and "malformed" in store[0], proc.stdout
    assert "--from-scratch" in proc.stdout
    proc = _run("story", "rebuild", "--from-scratch", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert Path(out["moved_aside"]).exists() and ".damaged-" in out["moved_aside"]
    assert len(out["stories"]) == 12
    check = sqlite3.connect(db)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = {r[0] for r in check.execute("SELECT story_id FROM story_records")}
    finally:
        check.close()
    assert ids == {f"STORY-{i}" for i in range(12)}
    assert _checks(_run("doctor", "--json").stdout)["store"]["status"] == "ok"


def test_from_scratch_keeps_the_notes_of_a_readable_store(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "STORY-1: a", {"a.txt": "a\n"})
    res = runner.invoke(app, ["story", "rebuild", "--from-scratch", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["salvaged"]["session_artifacts"] == 1 and out["salvaged"]["sessions"] == 1
    res = runner.invoke(app, ["story", "context", "STORY-1", "--json"])
    assert json.loads(res.output)["artifacts"]["decision"][0]["summary"] == \
        "keep the discount in cents"
