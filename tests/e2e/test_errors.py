"""The one error contract: usage errors exit 2, user errors are one line, bugs exit 70 with a log."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.kernel.errors import ExitCode

from helpers import genesis_cmd, git, write

runner = CliRunner()


def genesis(*args: str, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, as a user runs it."""
    return subprocess.run([*genesis_cmd(), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


# -- usage errors: click reports them, exit 2 -------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["search", "foo", "--bogus"], "No such option: --bogus"),
    (["search"], "Missing argument 'QUERY'"),
    (["search", "foo", "-k", "abc"], "'abc' is not a valid int"),
    (["bogus"], "No such command 'bogus'"),
    (["story", "link", "STORY-1"], "Missing option '--type'"),
])
def test_usage_errors_exit_2_with_the_usage(repo: Path, args: list[str], message: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == ExitCode.USAGE == 2, res.output
    assert message in res.stderr
    assert "Usage: " in res.stderr and "internal error" not in res.output


def test_a_group_without_its_command_shows_its_help_and_exits_2(repo: Path) -> None:
    res = runner.invoke(app, ["story"])
    assert res.exit_code == 2
    assert "context" in res.stderr and "rebuild" in res.stderr
    assert "internal error" not in res.output and res.stdout == ""


def test_a_query_that_starts_with_a_dash_goes_after_double_dash(repo: Path) -> None:
    refused = genesis("search", "-order", cwd=repo)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr.strip().splitlines()[-1] == (
        "Error: No such option: -o (if -order is text, not an option, put it after '--': "
        "genesis search -- -order)")
    cjk = genesis("search", "--json", "-订单", cwd=repo)
    assert cjk.returncode == 2 and "genesis search -- -订单" in cjk.stderr
    found = genesis("search", "--files", "--", "-OrderController", cwd=repo)
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("src/shop/orders.py\t")


# -- user errors: one line, exit 1 ------------------------------------------------------

def one_line(res: subprocess.CompletedProcess[str]) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    return lines[0]


def test_a_locked_store_is_a_user_error(repo: Path, genesis_env: Path) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0
    holder = sqlite3.connect(genesis_env / "genesis.db", isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        res = genesis("story", "set", "STORY-1", "--title", "x", cwd=repo,
                      env={"GENESIS_BUSY_TIMEOUT_MS": "200"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert res.returncode == 1
    assert one_line(res) == (
        f"genesis: error: the genesis store at {genesis_env / 'genesis.db'} is locked by another "
        "process (retry in a moment, or raise GENESIS_BUSY_TIMEOUT_MS)")


def test_a_store_locked_in_the_middle_of_a_command_is_a_user_error(
        repo: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock met after the store opened (not in ``connect``) gets the same line."""
    import genesis_git.stories.tables as ledger

    def locked(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(ledger, "list_records", locked)
    res = runner.invoke(app, ["story", "list"])
    assert res.exit_code == 1
    assert res.stderr == (f"genesis: error: the genesis store at {genesis_env / 'genesis.db'} is "
                          "locked by another process (retry in a moment, or raise "
                          "GENESIS_BUSY_TIMEOUT_MS)\n")


def test_a_malformed_store_gives_the_corrupt_store_message(repo: Path,
                                                           genesis_env: Path) -> None:
    assert runner.invoke(app, ["session", "start"]).exit_code == 0
    db = genesis_env / "genesis.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='sessions'").fetchone()[0]
    conn.close()
    with db.open("r+b") as fh:  # the sessions table's page, not the header: opening works
        fh.seek((root - 1) * page_size)
        fh.write(b"\xff" * page_size)
    res = genesis("session", "status", cwd=repo)
    assert res.returncode == 1
    assert one_line(res) == (
        f"genesis: error: the genesis store at {db} is corrupt (database disk image is malformed) "
        "(run `genesis doctor`; move the store folder aside, then `genesis init` and "
        "`genesis story rebuild` bring back what git holds)")


def test_genesis_home_pointing_at_a_file(repo: Path, tmp_path: Path) -> None:
    afile = write(tmp_path, "not-a-folder", "x")
    res = genesis("session", "start", cwd=repo, env={"GENESIS_HOME": str(afile)})
    assert res.returncode == 1
    assert one_line(res) == (f"genesis: error: GENESIS_HOME={afile} is not a folder "
                             "(point GENESIS_HOME at a folder, or unset it)")


def test_an_invalid_story_pattern_names_the_file_and_key(repo: Path) -> None:
    write(repo, ".genesis.toml", '[story]\npattern = "STORY-(\\\\d+"\n')
    res = genesis("story", "rebuild", cwd=repo)
    assert res.returncode == 1
    assert one_line(res) == (
        f"genesis: error: {repo / '.genesis.toml'}: story.pattern = \"STORY-(\\\\d+\": is not a "
        "valid regular expression (missing ), unterminated subpattern at position 6)")


def test_a_negative_max_file_bytes_names_the_file_or_variable(repo: Path) -> None:
    write(repo, "pyproject.toml", "[tool.genesis.index]\nmax_file_bytes = -1\n")
    res = genesis("session", "start", cwd=repo)
    assert res.returncode == 1
    assert one_line(res) == (f"genesis: error: {repo / 'pyproject.toml'} [tool.genesis]: "
                             "index.max_file_bytes = -1: must be 0 or more")
    (repo / "pyproject.toml").unlink()
    res = genesis("search", "order", cwd=repo, env={"GENESIS_INDEX_MAX_FILE_BYTES": "-5"})
    assert res.returncode == 1
    assert one_line(res) == ("genesis: error: GENESIS_INDEX_MAX_FILE_BYTES=-5: "
                             "index.max_file_bytes must be 0 or more")


def test_the_hook_reports_a_bad_config_and_lets_the_commit_through(repo: Path) -> None:
    assert runner.invoke(app, ["hooks", "install"]).exit_code == 0
    write(repo, ".genesis.toml", '[story]\npattern = "["\n')
    git(repo, "add", ".genesis.toml")
    proc = subprocess.run(["git", "commit", "-q", "-m", "STORY-1: config"], cwd=repo,
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert "story.pattern" in proc.stderr and "the commit is kept" in proc.stderr


# -- internal errors: exit 70, the traceback in the log -------------------------------------

def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom")


def test_an_internal_error_exits_70_and_names_its_log(repo: Path, genesis_env: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import genesis_git.cli.output as output

    monkeypatch.setattr(output, "emit_json", _boom)
    res = runner.invoke(app, ["init", "--json"])
    assert res.exit_code == ExitCode.INTERNAL == 70
    log = genesis_env / "genesis.log"
    assert res.stderr == f"genesis: internal error: RuntimeError: boom (the traceback is in {log})\n"
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom" in text
    debug = runner.invoke(app, ["--debug", "init", "--json"])
    assert debug.exit_code == 70
    assert "Traceback (most recent call last)" in debug.stderr
    assert log.read_text(encoding="utf-8").count("RuntimeError: boom") == 2


def test_an_internal_error_outside_a_repository_logs_to_the_user_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import genesis_git.cli.main as main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GENESIS_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(main, "_store_files", lambda: None)
    monkeypatch.setattr("genesis_git.app.doctor.run_checks", _boom)
    res = runner.invoke(app, ["doctor"])
    assert res.exit_code == 70
    log = tmp_path / "cache" / "genesis" / "genesis.log"
    assert res.stderr.endswith(f"(the traceback is in {log})\n")
    assert "RuntimeError: boom" in log.read_text(encoding="utf-8")


def test_hook_exit_statuses_come_from_the_enum() -> None:
    from genesis_git.hooks import run

    assert run.REJECT == ExitCode.COMMIT_REJECTED == 65
    assert run.main(["no-such-hook"]) == ExitCode.USAGE
    assert "65) exit 1" in (Path(run.__file__).parents[2] / "hooks" / "commit-msg").read_text()


def test_no_literal_exit_status_in_the_commands() -> None:
    """Every status a command sets comes from ExitCode (no ``typer.Exit(1)``)."""
    import re

    cli = Path(sys.modules["genesis_git.cli.main"].__file__ or "").parent
    for path in cli.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"Exit\(\d", text), path.name
        assert not re.search(r"exit_code=\d", text), path.name


# -- the README's table is what the commands do ----------------------------------------------

def _readme_codes() -> dict[int, str]:
    import re

    from helpers import ROOT

    section = (ROOT / "docs" / "reference" / "exit-codes.md").read_text(encoding="utf-8")
    return {int(code): meaning for code, meaning in
            re.findall(r"^\| (\d+) \| (.+) \|$", section, re.MULTILINE)}


def _exit_of(code: ExitCode, repo: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Make genesis end with ``code`` the way a user would meet it."""
    import genesis_git.cli.output as output

    if code == ExitCode.OK:
        return runner.invoke(app, ["story", "list"]).exit_code
    if code == ExitCode.USER_ERROR:
        return runner.invoke(app, ["story", "show", "STORY-404"]).exit_code
    if code == ExitCode.USAGE:
        return runner.invoke(app, ["story", "list", "--bogus"]).exit_code
    if code == ExitCode.ENVIRONMENT:
        monkeypatch.chdir(repo.parent)
        return runner.invoke(app, ["story", "list"]).exit_code
    if code == ExitCode.MIRROR:
        import socket

        pytest.importorskip("psycopg")
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        monkeypatch.setenv("GENESIS_LEDGER_MIRROR", f"postgresql://u@127.0.0.1:{port}/org")
        return runner.invoke(app, ["story", "list", "--org"]).exit_code
    if code == ExitCode.REMOTE:
        git(repo, "remote", "add", "origin", str(repo.parent / "no-such-remote.git"))
        return runner.invoke(app, ["sync"]).exit_code
    if code == ExitCode.COMMIT_REJECTED:
        from genesis_git.hooks.run import main

        write(repo, ".genesis.toml", "[story]\nrequire_story = true\n")
        msg = write(repo, ".git/COMMIT_EDITMSG", "no story here\n")
        return main(["commit-msg", str(msg)])
    if code == ExitCode.CHECK_FAILED:  # a file that changed with this one twice before
        for n in (1, 2):
            write(repo, "src/shop/orders.py", f"# {n}\n")
            write(repo, "db/schema.sql", f"-- {n}\n")
            git(repo, "commit", "-qam", f"pair {n}")
        write(repo, "src/shop/orders.py", "# 3\n")
        return runner.invoke(app, ["check", "--fail-on", "0.3"]).exit_code
    if code == ExitCode.INTERNAL:
        monkeypatch.setattr(output, "emit_json", _boom)
        return runner.invoke(app, ["story", "list", "--json"]).exit_code
    if code == ExitCode.INTERRUPTED:
        def interrupt(*args: object) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(output, "emit_json", interrupt)
        return runner.invoke(app, ["story", "list", "--json"]).exit_code
    if code == ExitCode.BROKEN_PIPE:
        def closed(*args: object) -> None:
            raise BrokenPipeError

        monkeypatch.setattr(output, "emit_json", closed)
        monkeypatch.setattr("genesis_git.cli.main._silence_stdout", lambda: None)
        return runner.invoke(app, ["story", "list", "--json"]).exit_code
    raise AssertionError(f"no scenario for {code!r}: add one, and a row to the README")


@pytest.mark.parametrize("code", list(ExitCode), ids=lambda c: c.name)
def test_every_exit_code_is_documented_and_reached(code: ExitCode, repo: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert int(code) in _readme_codes(), f"README's exit-code table lacks {int(code)}"
    assert _exit_of(code, repo, monkeypatch) == code


def test_the_readme_documents_no_other_exit_code() -> None:
    assert set(_readme_codes()) == {int(c) for c in ExitCode}
