"""The one error gate (``kernel.errors.handle``) and the one log (``kernel.log``), as the
command line, the hooks and the MCP server meet them."""

from __future__ import annotations

import logging
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git import __version__
from genesis_git.cli.main import app
from genesis_git.kernel.errors import EnvironmentProblem, ExitCode, GenesisError, handle
from genesis_git.kernel.log import LOGGER, log_entry, log_to_file, warn

runner = CliRunner()
PYTHON = ".".join(str(n) for n in sys.version_info[:3])


class Log:
    """A ``Record`` that keeps what it was given and says it wrote ``path``."""

    def __init__(self, path: str | None = "/logs/genesis.log") -> None:
        self.path = path
        self.entries: list[tuple[str, str]] = []

    def __call__(self, line: str, detail: str) -> str | None:
        self.entries.append((line, detail))
        return self.path


def _raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001 - the point is to hold it
        return caught


def test_an_expected_failure_is_one_line_and_its_code_and_is_not_logged() -> None:
    log = Log()
    failure = handle(_raised(GenesisError("no such story", hint="see `genesis story list`")),
                     record=log)
    assert (failure.code, failure.message, failure.internal, failure.log) == (
        1, "no such story (see `genesis story list`)", False, None)
    assert log.entries == []
    env = handle(_raised(EnvironmentProblem("not a git repository")), record=log)
    assert (env.code, env.message) == (ExitCode.ENVIRONMENT, "not a git repository")


def test_a_bug_is_logged_with_its_traceback_and_the_line_names_the_log() -> None:
    log = Log()
    failure = handle(_raised(RuntimeError("boom\nsecond line")), record=log)
    assert failure.code == ExitCode.INTERNAL == 70 and failure.internal
    assert failure.message == ("RuntimeError: boom second line "
                               "(the traceback is in /logs/genesis.log)")
    [(line, detail)] = log.entries
    assert line == "RuntimeError: boom second line"
    assert detail.startswith("Traceback (most recent call last)")
    assert "_raised" in detail and detail.rstrip().endswith("second line")
    nowhere = handle(_raised(RuntimeError("boom")), record=Log(None))
    assert nowhere.message == "RuntimeError: boom (run with --debug for the traceback)"
    assert nowhere.log is None


def test_the_hooks_log_expected_failures_too_and_debug_shows_the_traceback(
        capsys: pytest.CaptureFixture[str]) -> None:
    log = Log("/repo/.git/genesis/hooks.log")
    failure = handle(_raised(GenesisError("bad pattern")), record=log, log_expected=True)
    assert (failure.code, failure.message, failure.log) == (
        1, "bad pattern", "/repo/.git/genesis/hooks.log")
    assert [line for line, _ in log.entries] == ["GenesisError: bad pattern"]
    assert capsys.readouterr().err == ""
    handle(_raised(GenesisError("bad pattern")), record=log, debug=True)
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_a_store_error_names_the_store_only_when_asked(tmp_path: Path) -> None:
    locked = _raised(sqlite3.OperationalError("database is locked"))
    asked: list[int] = []

    def store() -> Path:
        asked.append(1)
        return tmp_path / "genesis.db"

    failure = handle(locked, record=Log(), store=store)
    assert failure.code == 1 and not failure.internal
    assert failure.message.startswith(f"the genesis store at {tmp_path / 'genesis.db'} is locked")
    assert asked == [1]
    handle(_raised(RuntimeError("x")), record=Log(), store=store)
    assert asked == [1]  # not a store error: the store is not looked up
    assert handle(_raised(KeyboardInterrupt()), record=Log()).code == ExitCode.INTERRUPTED


def test_a_log_entry_carries_the_command_and_the_versions() -> None:
    entry = log_entry(["genesis", "search", "x"], None, "Traceback ...\nValueError: v\n", "9.9")
    head, *rest = entry.splitlines()
    assert head.startswith("--- ") and head.endswith(
        f" genesis search x (genesis 9.9, python {PYTHON})")
    assert rest == ["Traceback ...", "ValueError: v"]
    hook = log_entry(["post-commit", "pid=7"], "ValueError: v", "Traceback ...\n", "9.9")
    assert hook.splitlines()[1:] == ["ValueError: v", "Traceback ..."]


def test_the_command_line_logs_a_bug_with_versions_and_command(
        repo: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> None:
        raise LookupError("lost")

    monkeypatch.setattr("genesis_git.cli.output.emit_json", boom)
    res = runner.invoke(app, ["story", "list", "--json"])
    log = genesis_env / "genesis.log"
    assert res.exit_code == 70
    assert res.stderr == f"genesis: internal error: LookupError: lost (the traceback is in {log})\n"
    head = log.read_text(encoding="utf-8").splitlines()[0]
    assert head.endswith(f"(genesis {__version__}, python {PYTHON})")


def test_the_hook_log_keeps_its_format_for_doctor(repo: Path, genesis_env: Path) -> None:
    from genesis_git.git.repo import find_repo
    from genesis_git.stories import hooklog

    where = hooklog.record(find_repo(repo), "post-commit", "OSError: full", "Traceback ...")
    assert where == genesis_env / "hooks.log"
    lines = where.read_text(encoding="utf-8").splitlines()
    assert "post-commit pid=" in lines[0] and f"(genesis {__version__}, python {PYTHON})" in lines[0]
    [(path, [failure])] = hooklog.read_failures(find_repo(repo))
    assert (failure.hook, failure.summary) == ("post-commit", "OSError: full")


# -- the log: core code warns through logging; each door shows it -------------------------

@pytest.fixture
def clean_logger() -> Iterator[logging.Logger]:
    """The genesis_git and root loggers as they were, whatever the test sets up."""
    logger, root = logging.getLogger(LOGGER), logging.getLogger()
    saved = (list(logger.handlers), logger.level, logger.propagate,
             list(root.handlers), root.level)
    logger.handlers = []
    yield logger
    for h in logger.handlers:
        if h not in saved[0]:
            h.close()
    logger.handlers, logger.level, logger.propagate = saved[0], saved[1], saved[2]
    root.handlers, root.level = saved[3], saved[4]


def test_a_core_warning_is_a_log_record_shown_on_stderr(
        clean_logger: logging.Logger, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    from genesis_git.stories.ledger.records import _stderr_warn

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _stderr_warn("refs/genesis/x is not a genesis ledger; skipped")
        warn("second")
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        (LOGGER, "WARNING", "refs/genesis/x is not a genesis ledger; skipped"),
        (LOGGER, "WARNING", "second")]
    assert capsys.readouterr().err == ("genesis: warning: refs/genesis/x is not a genesis "
                                       "ledger; skipped\ngenesis: warning: second\n")
    assert len(clean_logger.handlers) == 1  # the stderr handler is set up once


def test_the_mcp_servers_log_is_the_file_and_not_stderr(
        clean_logger: logging.Logger, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store" / "genesis.log"
    log_to_file(path, "9.9")
    warn("the ledger view was not updated")
    logging.getLogger("mcp.server").warning("a library's warning")
    for h in clean_logger.handlers:
        h.flush()
    assert capsys.readouterr().err == ""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [line.split(" genesis 9.9 ", 1)[1] for line in lines] == [
        "genesis_git: WARNING: the ledger view was not updated",
        "mcp.server: WARNING: a library's warning"]


def test_an_mcp_tool_bug_goes_to_the_repositorys_log_not_to_stderr(
        repo: Path, genesis_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from genesis_git.app.workspaces import Workspaces
    from genesis_git.mcp.server import GenesisTools

    tools = GenesisTools(Workspaces(limit=1))

    def work(g: object) -> tuple[dict[str, object], str]:
        raise ZeroDivisionError("division by zero")

    def unknown(g: object) -> tuple[dict[str, object], str]:
        raise GenesisError("unknown story")

    try:
        result = tools.run(None, work)
        user = tools.run(None, unknown)
    finally:
        tools.workspaces.close()
    log = genesis_env / "genesis.log"
    assert result.is_error
    assert result.content[0].text == (
        f"internal error: ZeroDivisionError: division by zero (the traceback is in {log})")
    text = log.read_text(encoding="utf-8")
    assert "genesis mcp test_an_mcp_tool_bug_goes_to_the_repositorys_log_not_to_stderr" in text
    assert "Traceback (most recent call last)" in text and "in work" in text
    assert user.is_error and user.content[0].text == "unknown story"
    assert text.count("Traceback") == 1  # the user's error is not logged
    assert capsys.readouterr().err == ""
