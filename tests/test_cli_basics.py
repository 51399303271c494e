from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from genesis_git import __version__
from genesis_git.cli.main import app

runner = CliRunner()


def test_version_and_help() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.output.strip() == f"genesis {__version__}"
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    assert "session" in res.output and "doctor" in res.output


def test_python_dash_m_works(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "--version"],
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"genesis {__version__}"


def test_init_is_idempotent(repo: Path, genesis_env: Path) -> None:
    first = runner.invoke(app, ["init"])
    assert first.exit_code == 0, first.output
    assert "(created)" in first.output
    assert (repo / ".genesis.toml").read_text().startswith("# genesis configuration")
    assert (genesis_env / "genesis.db").exists()
    second = runner.invoke(app, ["init"])
    assert second.exit_code == 0
    assert "(created)" not in second.output


def test_outside_a_repository_is_one_line_exit_3(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["init"])
    assert res.exit_code == 3
    assert res.output.strip().splitlines() == [
        f"genesis: error: {tmp_path}: not a git repository "
        "(run genesis inside a git working tree, or `git init` first)"]


def test_bare_repository_is_refused(tmp_path: Path, monkeypatch) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    monkeypatch.chdir(tmp_path / "b.git")
    res = runner.invoke(app, ["init"])
    assert res.exit_code == 3
    assert "bare repository" in res.output
