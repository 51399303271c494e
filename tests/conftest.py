"""Fixtures: a private genesis home, a pinned git identity, real temporary repositories,
and a guard that no process a test started outlives it.

Tests live in three folders by kind, and each test is marked with its folder's name:

- ``unit``: pure functions; no git repository, no subprocess, no database file;
- ``integration``: real git repositories, SQLite files and the library core in process;
- ``e2e``: the console script or the hooks as real subprocesses, the demo, the wheel,
  the MCP server over stdio, PostgreSQL.

Helpers that tests import live in ``helpers.py`` (importable from every folder).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from helpers import ROOT, SAMPLE_FILES, build_repo, git

TESTS = Path(__file__).resolve().parent
KINDS = ("unit", "integration", "e2e")

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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with the kind its folder names (``pytest -m unit``)."""
    for item in items:
        path = Path(str(item.path)).resolve()
        kind = path.relative_to(TESTS).parts[0] if path.is_relative_to(TESTS) else None
        if kind not in KINDS:
            raise pytest.UsageError(f"{path}: a test lives in tests/unit, tests/integration or "
                                    "tests/e2e, by what it runs (see tests/conftest.py)")
        item.add_marker(kind)


@pytest.fixture(autouse=True)
def _unit_tests_start_no_process(request: pytest.FixtureRequest,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A test in tests/unit that starts a process (git included) fails and says where it goes."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a unit test starts no process: it belongs in tests/integration")

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    for name in ("posix_spawn", "posix_spawnp", "fork"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)


# -- repositories: each content built once per session, a fresh copy for each test ------------

EXAMPLES = ROOT / "examples" / "shop"
Template = Callable[..., Path]


@pytest.fixture(scope="session")
def repo_template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """``template(files=None, extra=None, message=...)``: a committed repository, built once
    per session for each content and never used directly.  Its files are ``examples/shop``, or
    ``files`` instead when given, plus ``extra``."""
    built: dict[tuple[object, ...], Path] = {}

    def template(files: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None,
                 message: str = "shop example") -> Path:
        key = (tuple(sorted(files.items())) if files is not None else None,
               tuple(sorted((extra or {}).items())), message)
        if key not in built:
            root = tmp_path_factory.mktemp("repo-template") / "repo"
            if files is None:
                shutil.copytree(EXAMPLES, root,
                                ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
            built[key] = build_repo(root, {**(files or {}), **(extra or {})}, message,
                                    home=tmp_path_factory.mktemp("repo-home"))
        return built[key]

    return template


def copy_repo(template: Path, dest: Path) -> Path:
    """A copy of a template repository, ``.git`` included, as fresh as a new clone."""
    shutil.copytree(template, dest, symlinks=True)
    git(dest, "update-index", "-q", "--refresh")  # the copy's files have new inodes
    return dest


@pytest.fixture
def repo(repo_template: Template, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed repository with a few files of each kind (``SAMPLE_FILES``) at
    ``tmp_path / "repo"``; the cwd is its root."""
    root = copy_repo(repo_template(files=SAMPLE_FILES, message="initial"), tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def shop(request: pytest.FixtureRequest, repo_template: Template, tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy (``.git`` included) of the shop repository at ``tmp_path / "shop"``; the
    cwd is its root.  A module or test picks another content with
    ``pytest.mark.shop(files=..., extra=..., message=..., env=..., chdir=...)``: the arguments
    of :func:`repo_template`, environment variables to set, and ``chdir=False`` to stay put."""
    from genesis_git.search.session_index import clear_memory

    mark = request.node.get_closest_marker("shop")
    options = dict(mark.kwargs) if mark else {}
    chdir = options.pop("chdir", True)
    for name, value in options.pop("env", {}).items():
        monkeypatch.setenv(name, value)
    root = copy_repo(repo_template(**options), tmp_path / "shop")
    if chdir:
        monkeypatch.chdir(root)
    clear_memory()
    return root


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
def _histories_read_by_this_test() -> Iterator[None]:
    """Each test starts without the histories an earlier test read in this process (the
    repositories of tests are built alike, so their commits can be the same)."""
    from genesis_git.impact import history

    history.forget_histories()
    yield


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
