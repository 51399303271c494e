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


def test_only_the_command_being_run_is_built() -> None:
    from genesis_git.cli.main import command_name

    assert command_name(["search", "order", "--type", "DB"]) == "search"
    assert command_name(["--debug", "-C", "search", "session", "start"]) == "session"
    assert command_name(["--directory", "x", "story", "list"]) == "story"
    assert command_name(["--help"]) is None and command_name(["search", "--help"]) == "search"
    assert command_name(["--version", "search"]) is None
    assert command_name(["serch", "x"]) is None  # unknown: the whole app says so
    assert command_name([]) is None


def _plain_env() -> dict[str, str]:
    """The environment without coverage's subprocess hook, so the child exits as a user's does."""
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}


def test_the_console_script_keeps_output_and_exit_codes_when_it_exits_early(repo: Path) -> None:
    probe = ("import atexit, sys; atexit.register(lambda: print('teardown', file=sys.stderr)); "
             "from genesis_git.cli.main import run; sys.argv = ['genesis', *sys.argv[1:]]; run()")

    def genesis(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, env=_plain_env())

    version = genesis("--version")
    assert (version.returncode, version.stdout, version.stderr) == (
        0, f"genesis {__version__}\n", "")  # no teardown: the interpreter was not unwound
    unknown = genesis("session", "show", "s-nope")
    assert unknown.returncode == 1 and unknown.stderr.startswith("genesis: error: ")
    usage = genesis("search", "--type", "NOPE", "order")
    assert usage.returncode == 2 and "REQ, ARCH, API, DB, UI, CODE, OTHER" in usage.stderr
    found = genesis("search", "--json", "order")
    assert found.returncode == 0 and '"results"' in found.stdout
    help_all = genesis("--help")
    assert help_all.returncode == 0 and all(c in help_all.stdout for c in ("impact", "design"))


def test_a_reader_that_goes_away_ends_genesis_quietly(repo: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "genesis_git", "search", "-k", "50", "order"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_plain_env())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -0`: nobody reads what genesis prints
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert b"error" not in err and b"Traceback" not in err
