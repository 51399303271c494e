"""`genesis session note` and `genesis session artifacts`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.store.connect import connect

from helpers import git, write

runner = CliRunner()


def _session(root: Path, home: Path, sid: str = "s-1") -> None:
    conn = connect(home / "genesis.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES (?,?,?,?)",
                 (sid, "repo", str(root), "active"))
    conn.close()


def test_note_and_artifacts(repo: Path, genesis_env: Path) -> None:
    _session(repo, genesis_env)
    res = runner.invoke(app, ["session", "note", "orders get a discount column", "--role",
                              "decision", "--path", "db/schema.sql", "--section", "orders"])
    assert res.exit_code == 0, res.output
    assert res.output == ("noted #1 [decision] in s-1 (db/schema.sql § orders); "
                          "a commit with a story id binds it\n")
    res = runner.invoke(app, ["session", "note", "  mind old clients  ", "--role", "risk",
                              "--json"])
    item = json.loads(res.output)
    assert (item["id"], item["role"], item["summary"], item["path"], item["bound_commit"]) == (
        2, "risk", "mind old clients", None, None)
    assert item["created_by"] == "Test User <test@example.com>"
    res = runner.invoke(app, ["session", "artifacts"])
    assert res.exit_code == 0
    assert res.output.splitlines() == [
        "session s-1: 2 notes, 2 unbound",
        "  #1 [decision] orders get a discount column (db/schema.sql § orders) — unbound",
        "  #2 [risk] mind old clients — unbound",
    ]
    # binding happens at commit (run in-process here; the hooks do it on a real commit)
    from genesis_git.hooks.run import main as hook

    write(repo, "db/schema.sql", "CREATE TABLE orders (id INTEGER, code TEXT);\n")
    git(repo, "commit", "-qam", "STORY-12: discount column")
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert hook(["post-commit"]) == 0
    res = runner.invoke(app, ["session", "artifacts", "--json"])
    data = json.loads(res.output)
    assert data["unbound"] == 0
    assert [(a["stories"], a["bound_commit"]) for a in data["artifacts"]] == [
        (["STORY-12"], sha)] * 2
    out = runner.invoke(app, ["session", "artifacts", "--session", "s-1"]).output.splitlines()
    assert out[1].endswith(f"— bound to STORY-12 at {sha[:10]}")


def test_note_path_relative_to_the_current_folder(repo: Path, genesis_env: Path,
                                                  monkeypatch) -> None:
    _session(repo, genesis_env)
    monkeypatch.chdir(repo / "src")
    res = runner.invoke(app, ["session", "note", "see here", "--path", "shop/orders.py", "--json"])
    assert json.loads(res.output)["path"] == "src/shop/orders.py"
    for outside in ("/etc/hosts", "../../etc/passwd", "../.git/config"):
        res = runner.invoke(app, ["session", "note", "outside", "--path", outside])
        assert res.exit_code == 2, res.output
        where = "inside .git" if ".git" in outside else "outside the repository"
        assert f"--path {outside} is {where}" in res.output
    res = runner.invoke(app, ["session", "artifacts", "--json"])
    assert [a["summary"] for a in json.loads(res.output)["artifacts"]] == ["see here"]


def test_note_errors(repo: Path, genesis_env: Path) -> None:
    res = runner.invoke(app, ["session", "note", "x", "--role", "idea"])
    assert res.exit_code == 2
    assert res.output.strip() == ("genesis: error: unknown role 'idea' (choose from analysis, "
                                  "doc_change, note, decision, risk, test_model)")
    _session(repo, genesis_env)
    res = runner.invoke(app, ["session", "note", "   "])
    assert res.exit_code == 2
    assert res.output.strip() == \
        'genesis: error: the note is empty (give its text: genesis session note "...")'


def test_note_without_a_session_starts_one(repo: Path, genesis_env: Path) -> None:
    res = runner.invoke(app, ["session", "note", "first thought", "--role", "analysis"])
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith("genesis: no session yet: started s-")
    assert res.stdout.startswith("noted #1 [analysis] in s-")


def test_artifacts_errors(repo: Path, genesis_env: Path) -> None:
    res = runner.invoke(app, ["session", "artifacts"])
    assert res.exit_code == 1
    assert res.output.strip() == (
        "genesis: error: no active session in this worktree (start one with "
        "`genesis session start`, or name one with --session)")
    res = runner.invoke(app, ["session", "artifacts", "--session", "s-404"])
    assert res.exit_code == 1
    assert res.output.strip() == \
        "genesis: error: unknown session 's-404' (see `genesis session list`)"
