"""The command line goes through the core: every command is a call of ``Genesis`` (genesis_git.app.facade).

An MCP server or any other front end calls the same methods and gets what the
command line gets; these tests hold both to that.
"""

from __future__ import annotations

import ast
from pathlib import Path

from typer.testing import CliRunner

from genesis_git.app.facade import Genesis
from genesis_git.cli.main import app

from helpers import ROOT, commit_files, git

runner = CliRunner()

# What only the core may open: git, the configuration, the store, sessions.
CORE_ONLY = ("genesis_git.git.repo", "genesis_git.config.settings", "genesis_git.store", "genesis_git.index.session",
             "genesis_git.app.initialize", "genesis_git.app.doctor", "genesis_git.index.cache",
             "genesis_git.stories.tables", "genesis_git.stories.binding",
             "genesis_git.stories.rebuild", "genesis_git.stories.artifacts",
             "genesis_git.hooks.install", "genesis_git.search.engine", "genesis_git.providers.llm")


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def test_cli_modules_open_nothing_themselves() -> None:
    offenders = [f"{path.name}:{line}: {module}"
                 for path in sorted((ROOT / "genesis_git" / "cli").glob("*.py"))
                 for line, module in _imports(path)
                 if any(module == banned or module.startswith(banned + ".")
                        for banned in CORE_ONLY)]
    assert offenders == [], "the CLI must go through genesis_git.app.facade: " + ", ".join(offenders)


def test_the_facade_answers_what_the_commands_print(repo: Path) -> None:
    """A session, a note, a commit, then the same answers from the CLI and from Genesis."""
    import json

    assert runner.invoke(app, ["hooks", "install"]).exit_code == 0
    with Genesis() as g:
        assert g.hooks.status()["hooks"][0]["state"] == "installed"
        report = g.sessions.start(name="订单", prebuild=False)
        assert report.started and report.files == 4
        assert g.sessions.active()["name"] == "订单"  # type: ignore[index]
        item = g.sessions.note("discount_code 可为空", role="decision", path="db/schema.sql")
        assert item["role"] == "decision" and item["path"] == "db/schema.sql"
    commit_files(repo, "STORY-7: discount code", {"db/schema.sql": "CREATE TABLE orders (\n"
                                                    "  id INTEGER PRIMARY KEY,\n"
                                                    "  discount_code TEXT\n);\n"})
    cli = json.loads(runner.invoke(app, ["story", "show", "STORY-7", "--json"]).stdout)
    with Genesis() as g:
        assert g.stories.show("STORY-7") == cli
        assert [r["story_id"] for r in g.stories.all()] == ["STORY-7"]
        rec, created = g.stories.set("STORY-7", status="review")
        assert rec["status"] == "review" and not created
        head = git(repo, "rev-parse", "HEAD").strip()
        assert g.stories.link("STORY-7", "commit", "HEAD")["target"] == head
        arts = g.sessions.notes()
        assert arts["artifacts"][0]["stories"] == ["STORY-7"] and arts["unbound"] == 0
        assert g.stories.rebuild()["stories"] == ["STORY-7"]
        hits = g.search.run("discount code", g.search.options(k=3, types=("DB",)), announce=print)
        assert [h.path for h in hits.hits] == ["db/schema.sql"]
        sid = g.sessions.active()["id"]  # type: ignore[index]
        assert [s["id"] for s in g.sessions.all()] == [sid]
        assert g.sessions.summary(sid)["artifacts"] == 1
        assert g.sessions.refresh(prebuild=False).session == sid
        impact = g.impact.run("订单表新增字段 discount_code", g.impact.options(k=3))
        assert "db/schema.sql" in [f["path"] for f in impact.result["files"]]
        shown = runner.invoke(app, ["impact", "--json", "-k", "3", "订单表新增字段 discount_code"])
        assert json.loads(shown.stdout) == impact.to_json()
        blobs = g.cache.stats()["blobs"]
        assert g.cache.gc(dry_run=True)["blobs_removed"] == 1  # schema.sql before the commit
        assert g.cache.stats()["blobs"] == blobs
        assert g.sessions.end() == sid and g.sessions.active() is None
        assert {f.name for f in g.doctor()} >= {"git", "store"}
        assert g.hooks.uninstall()["hooks"]
    assert runner.invoke(app, ["session", "status"]).exit_code == 1
