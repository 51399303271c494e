"""The first hour in a repository: where `genesis init` puts the settings, and that genesis
leaves no file that holds nothing (no empty brief, no `.shared/` or `tasks/` for nothing),
through the console script and the MCP server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from genesis_git.app.workspaces import Workspaces
from genesis_git.config.settings import load_config
from genesis_git.mcp.server import build_server

from helpers import genesis_cmd, git, make_repo

PYPROJECT = '[project]\nname = "shop"\nversion = "1.0"\n\n[tool.ruff]\nline-length = 100\n'


def gen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*genesis_cmd(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def untracked_and_changed(repo: Path) -> list[str]:
    return git(repo, "status", "--short", "--untracked-files=all").splitlines()


# -- where the settings go ------------------------------------------------------------------

def test_init_appends_tool_genesis_to_an_existing_pyproject(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT, "app.py": "x = 1\n"})
    first = gen(repo, "init")
    assert first.returncode == 0, first.stderr
    assert f"config: {repo / 'pyproject.toml'} [tool.genesis] (created)" in first.stdout
    assert not (repo / ".genesis.toml").exists()
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(PYPROJECT + "\n[tool.genesis]\n")  # appended, the rest untouched
    assert "# [tool.genesis.search]\n" in text and "# k = 10\n" in text
    assert "\n# [search]" not in text
    assert untracked_and_changed(repo) == [" M pyproject.toml"]
    # idempotent: a second init changes nothing
    again = gen(repo, "init")
    assert again.returncode == 0
    assert f"config: {repo / 'pyproject.toml'} [tool.genesis] (exists)" in again.stdout
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == text
    # and what is written there is read: uncomment one key
    (repo / "pyproject.toml").write_text(text.replace("# [tool.genesis.search]\n",
                                                      "[tool.genesis.search]\n")
                                         .replace("# k = 10\n", "k = 3\n"), encoding="utf-8")
    assert load_config(repo).int("search.k") == 3


def test_init_keeps_the_line_endings_of_pyproject(tmp_path: Path) -> None:
    crlf = PYPROJECT.replace("\n", "\r\n").rstrip("\r\n")  # CRLF, no final newline
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    (repo / "pyproject.toml").write_bytes(crlf.encode())
    assert gen(repo, "init").returncode == 0
    assert gen(repo, "init", "--share").returncode == 0
    data = (repo / "pyproject.toml").read_bytes()
    assert data.startswith(crlf.encode() + b"\r\n\r\n[tool.genesis]\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends in CRLF
    assert data.endswith(b"[tool.genesis.ledger]\r\nshare = true\r\n")


def test_init_without_pyproject_writes_genesis_toml(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    res = gen(repo, "init", "--json")
    assert res.returncode == 0
    assert (repo / ".genesis.toml").read_text(encoding="utf-8").startswith(
        "# genesis configuration")
    assert untracked_and_changed(repo) == ["?? .genesis.toml"]
    assert '"config_table": null' in res.stdout


def test_an_existing_genesis_toml_stays_the_config(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT,
                                         ".genesis.toml": "[search]\nk = 4\n"})
    res = gen(repo, "init", "--share")
    assert res.returncode == 0, res.stderr
    assert "(set now: commit .genesis.toml)" in res.stdout
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == PYPROJECT
    assert (repo / ".genesis.toml").read_text(encoding="utf-8").endswith(
        "[ledger]\nshare = true\n")


def test_existing_tool_genesis_tables_are_left_alone(tmp_path: Path) -> None:
    own = PYPROJECT + "\n[tool.genesis.ledger]\nshare = false\n\n[tool.black]\nline-length = 90\n"
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": own})
    res = gen(repo, "init")
    assert res.returncode == 0
    assert "[tool.genesis] (exists)" in res.stdout
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == own
    # --share turns the one line around, in its own table, and says to commit the file
    res = gen(repo, "init", "--share")
    assert res.returncode == 0
    assert "ledger: shared through the git remote (no remote yet) (set now: commit pyproject.toml)" \
        in res.stdout
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == own.replace(
        "share = false", "share = true")
    assert load_config(repo).bool("ledger.share") is True


def test_share_in_a_layout_it_cannot_edit_is_one_line_and_no_change(tmp_path: Path) -> None:
    own = PYPROJECT.replace("[tool.ruff]", "[tool]\ngenesis = { ledger = { share = false } }\n\n"
                                           "[tool.ruff]")
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": own})
    res = gen(repo, "init", "--share")
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [
        f"genesis: error: {repo / 'pyproject.toml'}: cannot turn on sharing in this layout "
        "(write share = true under [tool.genesis.ledger] yourself)"]
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == own


def test_a_broken_pyproject_is_named_and_left_as_it_is(tmp_path: Path) -> None:
    broken = PYPROJECT + "[tool.genesis\n"
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": broken})
    res = gen(repo, "init")
    assert res.returncode == 1
    assert res.stderr.startswith(f"genesis: error: {repo / 'pyproject.toml'}: invalid TOML: ")
    assert "Traceback" not in res.stderr
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == broken
    assert not (repo / ".genesis.toml").exists()


# -- no file that holds nothing ----------------------------------------------------------------

@pytest.mark.slow
def test_the_first_commands_leave_only_the_settings(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": PYPROJECT,
                                         "app.py": "def order_total():\n    return 1\n"})
    for args in (["init"], ["session", "start"], ["search", "order total"],
                 ["impact", "change the order total"], ["design", "search", "card"],
                 ["design", "status"], ["doctor"]):
        res = gen(repo, *args)
        assert "Traceback" not in res.stderr, (args, res.stderr)
    brief = gen(repo, "design", "brief", "dark mode home cards")
    assert brief.returncode == 1
    assert brief.stdout == ""
    assert brief.stderr.strip().splitlines() == [
        "genesis: error: no brief written: no design library at .shared/design-library (run "
        "`genesis design init`, then `genesis design ingest rules`)"]
    assert untracked_and_changed(repo) == [" M pyproject.toml"]
    assert not (repo / "tasks").exists() and not (repo / ".shared").exists()


def test_a_brief_to_another_place_creates_no_folder_for_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    assert gen(repo, "design", "init").returncode == 0
    before = untracked_and_changed(repo)
    res = gen(repo, "design", "brief", "dark", "--out", "docs/briefs/dark.md", "--json")
    assert res.returncode == 1 and res.stdout == ""
    assert "no brief written: the design library holds no card" in res.stderr
    assert not (repo / "docs").exists()
    assert untracked_and_changed(repo) == before
    # with cards, the brief and its record are written as before
    assert gen(repo, "design", "ingest", "rules").returncode == 0
    res = gen(repo, "design", "brief", "dark", "--out", "docs/briefs/dark.md")
    assert res.returncode == 0, res.stderr
    assert (repo / "docs" / "briefs" / "dark.md").read_text(encoding="utf-8").startswith(
        "# Design brief")
    assert (repo / ".shared" / "outbox-dsh.md").is_file()


def test_a_request_without_a_library_is_not_answered_with_an_empty_brief(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    assert gen(repo, "design", "request", "dark mode · home cards").returncode == 0
    res = gen(repo, "design", "brief", "--request", "q-1")
    assert res.returncode == 1
    assert "no brief written" in res.stderr
    assert not (repo / "tasks").exists()
    assert not (repo / ".shared" / "outbox-dsh.md").exists()  # q-1 stays pending
    status = json.loads(gen(repo, "design", "status", "--json").stdout)
    assert status["pending"] == 1 and status["requests"][0]["answered"] is False


def test_the_mcp_brief_without_a_library_is_an_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    server, _ = build_server(Workspaces(limit=1))

    async def drive() -> Any:
        async with Client(server) as client:
            return await client.call_tool("design_brief", {"query": "dark mode home cards",
                                                           "repo": str(repo)})

    result = anyio.run(drive)
    assert result.is_error
    assert [c.text for c in result.content if c.type == "text"] == [
        "no brief written: no design library at .shared/design-library (run `genesis design "
        "init`, then `genesis design ingest rules`)"]
    assert not (repo / "tasks").exists() and not (repo / ".shared").exists()
