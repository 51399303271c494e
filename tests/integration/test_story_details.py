"""Smaller promises of the story commands, on real repositories."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from genesis_git.cli.main import app

from helpers import commit_files, git

runner = CliRunner()


def test_unknown_id_suggests_the_same_prefix_and_the_nearest_number(
        repo: Path, genesis_env: Path) -> None:
    for sid in ("STORY-12", "STORY-13", "STORY-14", "STORY-39", "STORY-44", "SHOP-41"):
        assert runner.invoke(app, ["story", "set", sid, "--title", "t"]).exit_code == 0
    res = runner.invoke(app, ["story", "context", "STORY-41"])
    assert res.exit_code == 1
    assert res.output.strip() == ("genesis: error: unknown story 'STORY-41' "
                                  "(closest known: STORY-39, STORY-44, STORY-14)")
    res = runner.invoke(app, ["story", "show", "shop-40"])
    assert "(closest known: SHOP-41)" in res.output
    res = runner.invoke(app, ["story", "show", "SHOPX"])  # no number: spelling decides
    assert "closest known: SHOP-41" in res.output


def test_paths_with_control_characters_are_quoted_as_git_does(repo: Path,
                                                              genesis_env: Path) -> None:
    commit_files(repo, "STORY-50: odd names", {"a\tb.txt": "x\n", "new\nline.md": "y\n",
                                               "订单.md": "z\n"})
    assert runner.invoke(app, ["story", "rebuild"]).exit_code == 0
    text = runner.invoke(app, ["story", "context", "STORY-50"]).output
    assert '  added    "a\\tb.txt"' in text.splitlines()
    assert '  added    "new\\nline.md"' in text.splitlines()
    assert "  added    订单.md" in text.splitlines()  # like core.quotePath=false
    md = runner.invoke(app, ["story", "context", "STORY-50", "--markdown"]).output
    assert '- added: `"a\\tb.txt"`' in md.splitlines()
    assert "\t" not in md
    data = json.loads(runner.invoke(app, ["story", "context", "STORY-50", "--json"]).output)
    assert {f["path"] for f in data["files"]} == {"a\tb.txt", "new\nline.md", "订单.md"}


def test_a_doc_outside_the_repository_is_refused(repo: Path, genesis_env: Path,
                                                 tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not part of the repository\n")
    for doc in ("/etc/passwd", str(outside)):
        res = runner.invoke(app, ["session", "start", "--doc", doc])
        assert res.exit_code == 1
        assert res.output.strip().splitlines() == [
            f"genesis: error: --doc {doc}: outside the repository ({repo}) (give a file of "
            "this worktree; link an outside document with `genesis story link STORY-ID "
            "--type doc --target URL-OR-PATH`)"]
    (repo / "passwd-link").symlink_to("/etc/passwd")
    res = runner.invoke(app, ["session", "start", "--doc", "passwd-link"])
    assert res.exit_code == 1 and "outside the repository" in res.output
    res = runner.invoke(app, ["session", "start", "--doc", "docs/req/orders.md", "--json"])
    assert res.exit_code == 0, res.output


def test_reading_the_ledger_of_a_clone_without_a_store_creates_none(
        repo: Path, genesis_env: Path) -> None:
    commit_files(repo, "STORY-60: something", {"a.txt": "a\n"})
    assert not (genesis_env / "genesis.db").exists()
    assert runner.invoke(app, ["story", "list"]).output.startswith("no stories (")
    assert json.loads(runner.invoke(app, ["story", "list", "--json"]).output) == {"stories": []}
    res = runner.invoke(app, ["story", "context", "STORY-60"])
    assert res.exit_code == 1 and "no stories yet" in res.output
    assert runner.invoke(app, ["story", "show", "STORY-60"]).exit_code == 1
    assert not (genesis_env / "genesis.db").exists()
    assert not any(genesis_env.iterdir())
    # a command that writes creates it, as before
    assert runner.invoke(app, ["story", "rebuild"]).exit_code == 0
    assert (genesis_env / "genesis.db").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_search_and_impact_quote_odd_paths(repo: Path, genesis_env: Path) -> None:
    commit_files(repo, "odd names", {"a\tb.md": "# Zebrafish\n\nzebrafish feeding rules\n",
                                     "new\nline.md": "# Zebrafish\n\nzebrafish tank rules\n"})
    out = runner.invoke(app, ["search", "zebrafish", "--files"]).output
    firsts = {ln.split("\t")[0] for ln in out.splitlines() if ln.strip()}
    assert {'"a\\tb.md"', '"new\\nline.md"'} <= firsts
    out = runner.invoke(app, ["search", "zebrafish"]).output
    assert any(ln.startswith('"new\\nline.md":') for ln in out.splitlines())
    assert not any(ln.startswith("line.md") for ln in out.splitlines())
    for fmt in ([], ["--markdown"]):
        res = runner.invoke(app, ["impact", "zebrafish feeding rules", *fmt])
        assert res.exit_code == 0, res.output
        assert '"a\\tb.md"' in res.output and "a\tb.md" not in res.output
        assert "new\nline.md" not in res.output
