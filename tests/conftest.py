"""Shared fixtures: real temporary git repositories, a private genesis home, a pinned identity."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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
        if var.startswith("GENESIS_") and var not in ("GENESIS_HOME",):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    return home


def git(cwd: Path, *args: str, input: str | None = None, check: bool = True,
        env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, input=input, text=True,
                          capture_output=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def make_repo(path: Path, files: dict[str, str] | None = None, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    for rel, text in (files or {}).items():
        write(path, rel, text)
    if commit and files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


SAMPLE_FILES = {
    "README.md": "# Shop\n\nAn order service.\n\n## Usage\n\nRun the server.\n",
    "src/shop/orders.py": (
        "class OrderController:\n"
        "    \"\"\"Handles order requests.\"\"\"\n\n"
        "    def create_order(self, customer_id, items):\n"
        "        return {'customer': customer_id, 'items': items}\n\n\n"
        "def cancel_order(order_id):\n"
        "    return order_id\n"
    ),
    "db/schema.sql": "CREATE TABLE orders (\n  id INTEGER PRIMARY KEY,\n  total NUMERIC\n);\n",
    "docs/req/orders.md": "# 订单需求\n\n## 新增字段\n\n订单表新增字段 discount_code。\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A committed repository with a few files of each kind; the cwd is its root."""
    root = make_repo(tmp_path / "repo", SAMPLE_FILES)
    monkeypatch.chdir(root)
    yield root


def genesis_cmd() -> list[str]:
    """The real console entry point, as a subprocess argv."""
    return [sys.executable, "-m", "genesis_git"]


def read_pty(master: int) -> bytes:
    """Everything written to a pseudo-terminal until its other side closes."""
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks)


def commit_files(root: Path, msg: str, files: dict[str, str | None] | None = None,
                 *extra: str) -> str:
    """Write (or, for ``None``, remove) files, commit them with ``msg``; the new HEAD."""
    for rel, text in (files or {}).items():
        if text is None:
            git(root, "rm", "-q", rel)
        else:
            write(root, rel, text)
            git(root, "add", rel)
    git(root, "commit", "-q", "-m", msg, *extra)
    return git(root, "rev-parse", "HEAD").strip()


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
