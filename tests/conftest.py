"""Fixtures: a private genesis home, a pinned git identity, real temporary repositories,
and a guard that no process a test started outlives it.

Helpers that tests import live in ``helpers.py``.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import SAMPLE_FILES, make_repo

# Every process the suite starts inherits this variable, detached ones included, so
# that the guard below finds them wherever they were re-parented.
RUN_VAR = "GENESIS_TEST_RUN"
RUN_ID = f"{os.getpid()}-{secrets.token_hex(4)}"
os.environ[RUN_VAR] = RUN_ID
REAP_SECONDS = 60.0


@pytest.fixture(autouse=True)
def genesis_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own store and a pinned git identity; nothing touches $HOME."""
    home = tmp_path_factory.mktemp("genesis-home")
    monkeypatch.setenv("GENESIS_HOME", str(home))
    fake_home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(fake_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(fake_home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(var, "Test User")
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "test@example.com")
    for var in list(os.environ):
        if var.startswith("GENESIS_") and var not in ("GENESIS_HOME", RUN_VAR):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    return home


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A committed repository with a few files of each kind; the cwd is its root."""
    root = make_repo(tmp_path / "repo", SAMPLE_FILES)
    monkeypatch.chdir(root)
    yield root


# -- no process outlives its test -------------------------------------------------------------

def _started_by_the_suite() -> dict[int, str]:
    """Live processes (other than this one) that carry this run's marker: pid -> command."""
    found: dict[int, str] = {}
    needle = f"{RUN_VAR}={RUN_ID}".encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue  # a zombie: its parent reaps it, nothing runs
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                found[int(entry.name)] = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _reap(timeout: float, keep: frozenset[int] | set[int] = frozenset()) -> dict[int, str]:
    """Wait for the suite's stray processes (but ``keep``) to end; kill and return the rest."""
    deadline = time.monotonic() + timeout
    left = {p: c for p, c in _started_by_the_suite().items() if p not in keep}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p: c for p, c in _started_by_the_suite().items() if p not in keep}
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


@pytest.fixture(autouse=True)
def _processes_end_with_their_test() -> Iterator[None]:
    """A process a test starts (a detached indexer or search-base builder too) ends with it;
    one that a session-wide fixture started before the test (a database server) may stay."""
    before = set(_started_by_the_suite())
    yield
    left = _reap(REAP_SECONDS, before)
    assert not left, f"processes outlived the test (killed now): {left}"


@pytest.fixture(scope="session", autouse=True)
def _no_process_outlives_the_suite() -> Iterator[None]:
    yield
    left = _reap(REAP_SECONDS)
    assert not left, f"processes outlived the suite (killed now): {left}"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """A real PostgreSQL for the whole session (see ``pg_helpers``)."""
    from pg_helpers import start_server

    with start_server() as server:
        yield server


@pytest.fixture
def pg_db(pg_server: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A fresh database; its owner's password is in PGPASSWORD, no other PG* variable is set."""
    from pg_helpers import fresh_database

    for var in list(os.environ):
        if var.startswith("PG"):
            monkeypatch.delenv(var, raising=False)
    with fresh_database(pg_server) as db:  # type: ignore[arg-type]
        monkeypatch.setenv("PGPASSWORD", db.password)
        yield db
