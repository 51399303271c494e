"""`genesis story list|show|set|link|context|rebuild`, and rebuilding a fresh clone from git log."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.render import stories as render_stories
from genesis_git.store.connect import connect
from genesis_git.stories import context as story_context
from genesis_git.stories.tables import story_texts

from helpers import commit_files, git, make_repo

runner = CliRunner()




def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _err(code: int, *args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output
    return res.output.strip()


@pytest.fixture
def story_repo(repo: Path) -> dict[str, Any]:
    """STORY-12 in two commits (tmp.txt added then removed), STORY-13 in one; no hooks."""
    c1 = commit_files(repo, "STORY-12: add a discount code", {
        "src/shop/discount.py": "def apply(code):\n    return code\n", "tmp.txt": "t\n"})
    c2 = commit_files(repo, "STORY-12: drop the scratch file", {"tmp.txt": None,
                                                            "README.md": "# Shop\n"})
    c3 = commit_files(repo, "STORY-13: cancel orders", {"src/shop/cancel.py": "X = 1\n"})
    out = _ok("story", "rebuild")
    assert out.splitlines() == [
        "scanned 4 commits, 3 name a story: 2 stories (2 new), 3 commit links and 5 file changes "
        "added, 0 notes bound"]
    return {"root": repo, "c1": c1, "c2": c2, "c3": c3}


def test_list_show_and_set(story_repo: dict[str, Any]) -> None:
    head, *lines = _ok("story", "list").splitlines()
    assert head == "story\tstatus\tcommits\tnotes\tupdated\ttitle"
    lines.sort()
    assert [ln.split("\t")[:4] for ln in lines] == [
        ["STORY-12", "in_progress", "2", "0"], ["STORY-13", "in_progress", "1", "0"]]
    assert [ln.split("\t")[5] for ln in lines] == ["add a discount code", "cancel orders"]
    assert _ok("story", "set", "STORY-12", "--status", "review").strip() == \
        "updated STORY-12: review, add a discount code"
    data = json.loads(_ok("story", "list", "--status", "review", "--json"))
    assert [s["story_id"] for s in data["stories"]] == ["STORY-12"]
    assert _ok("story", "list", "--status", "done").strip() == (
        "no stories with status done (commit with a story id in the subject, "
        "or run `genesis story rebuild`)")
    assert _err(2, "story", "list", "--status", "finished") == (
        "genesis: error: unknown status 'finished' (choose from draft, in_progress, review, "
        "done, archived)")
    assert _ok("story", "set", "STORY-30", "--title", "Checkout").strip() == \
        "created STORY-30: draft, Checkout"
    assert _err(2, "story", "set", "STORY-30") == \
        "genesis: error: nothing to set (give --status and/or --title)"
    assert _err(2, "story", "set", "STORY-30", "--status", "closed").startswith(
        "genesis: error: unknown status 'closed'")
    out = _ok("story", "show", "STORY-12").splitlines()
    assert out[0] == "STORY-12: add a discount code"
    assert out[1] == "status:   review"
    assert out[2] == f"baseline: {git(story_repo['root'], 'rev-parse', 'HEAD~3').strip()}"
    assert out[5:] == ["commits:  2   files touched: 3", "artifacts: none"]
    shown = json.loads(_ok("story", "show", "STORY-30", "--json"))
    assert (shown["status"], shown["commits"], shown["links"]) == ("draft", 0, [])


def test_unknown_story_suggests_the_closest(story_repo: dict[str, Any]) -> None:
    assert _err(1, "story", "context", "STORY-21") == \
        "genesis: error: unknown story 'STORY-21' (closest known: STORY-13, STORY-12)"
    assert _err(1, "story", "show", "story-13") == \
        "genesis: error: unknown story 'story-13' (closest known: STORY-13, STORY-12)"
    assert _err(1, "story", "show", "XYZ") == \
        "genesis: error: unknown story 'XYZ' (see `genesis story list`)"


def test_unknown_story_in_an_empty_ledger(repo: Path) -> None:
    assert _err(1, "story", "context", "STORY-12") == (
        "genesis: error: unknown story 'STORY-12' (no stories yet: commit with the id in the "
        "subject, or run `genesis story rebuild` to read them from git log)")
    assert _ok("story", "list").strip().startswith("no stories (")


def test_link(story_repo: dict[str, Any]) -> None:
    assert _ok("story", "link", "STORY-12", "--type", "adr", "--target", "ADR-7",
               "--description", "discounts live in orders").strip() == \
        "linked: STORY-12 -> adr ADR-7"
    assert _ok("story", "link", "STORY-12", "--type", "adr", "--target", "ADR-7").strip() == \
        "already linked: STORY-12 -> adr ADR-7"
    assert _err(2, "story", "link", "STORY-12", "--type", "wiki", "--target", "x") == (
        "genesis: error: unknown link type 'wiki' (choose from story, adr, ticket, pr, commit, "
        "doc, external)")
    assert _err(2, "story", "link", "STORY-12", "--type", "pr", "--target", " ") == \
        "genesis: error: --target is empty"
    assert _err(1, "story", "link", "STORY-99", "--type", "pr", "--target", "1").startswith(
        "genesis: error: unknown story 'STORY-99' (closest known: ")
    # a commit without an id in its message, linked by hand, brings its files
    root = story_repo["root"]
    plain = commit_files(root, "tidy up", {"src/shop/util.py": "Y = 2\n"})
    out = _ok("story", "link", "STORY-13", "--type", "commit", "--target", "HEAD")
    assert out.strip() == f"linked: STORY-13 -> commit {plain} (1 changed files)"
    assert _err(1, "story", "link", "STORY-13", "--type", "commit", "--target", "nope") == \
        "genesis: error: 'nope' is not a commit of this repository (give a SHA, a branch or a tag)"
    data = json.loads(_ok("story", "context", "STORY-13", "--json"))
    assert [f["path"] for f in data["files"]] == ["src/shop/cancel.py", "src/shop/util.py"]
    ctx = json.loads(_ok("story", "context", "STORY-12", "--json"))
    assert ctx["links"] == [{"type": "adr", "target": "ADR-7",
                             "description": "discounts live in orders",
                             "created_at": ctx["links"][0]["created_at"]}]


def _add_notes(home: Path, story: str) -> None:
    conn = connect(home / "genesis.db")
    for i, (role, text, path) in enumerate((
            ("requirement", None, "docs/req/orders.md"),
            ("decision", "codes are case-insensitive", "src/shop/discount.py"),
            ("risk", "old clients", None))):
        conn.execute("INSERT INTO story_artifacts(story_id, artifact_role, doc_id, path, summary, "
                     "section, source_ref) VALUES (?,?,?,?,?,?,?)",
                     (story, role, f"n{i}", path, text, "apply" if role == "decision" else None,
                      "s-1"))
    conn.close()


def test_context_text_markdown_and_json(story_repo: dict[str, Any], genesis_env: Path) -> None:
    _add_notes(genesis_env, "STORY-12")
    _ok("story", "link", "STORY-12", "--type", "ticket", "--target", "JIRA-1")
    root, c1, c2 = story_repo["root"], story_repo["c1"], story_repo["c2"]
    date = git(root, "log", "-1", "--format=%aI", c1).strip()[:10]
    text = _ok("story", "context", "STORY-12").splitlines()
    assert text[0] == "STORY-12: add a discount code"
    assert text[2:] == [
        "",
        "commits (2):",
        f"  {c1[:10]}  {date}  Test User <test@example.com>  STORY-12: add a discount code",
        f"  {c2[:10]}  {date}  Test User <test@example.com>  STORY-12: drop the scratch file",
        "",
        "files (2, net):",
        "  updated  README.md",
        "  added    src/shop/discount.py",
        "",
        "artifacts:",
        "  requirement:",
        "    - docs/req/orders.md",
        "  decision:",
        "    - codes are case-insensitive (src/shop/discount.py § apply)",
        "  risk:",
        "    - old clients",
        "",
        "links:",
        "  ticket: JIRA-1",
    ]
    md = _ok("story", "context", "STORY-12", "--markdown")
    base = git(root, "rev-parse", f"{c1}~1").strip()
    assert md.startswith(
        "# STORY-12: add a discount code\n\n- status: in_progress\n"
        f"- baseline commit: {base}\n")
    assert md.split("## Requirement\n", 1)[1] == (
        "- docs/req/orders.md\n\n"
        "## Commits (2)\n"
        f"- `{c1[:10]}` {date} Test User <test@example.com>: STORY-12: add a discount code\n"
        f"- `{c2[:10]}` {date} Test User <test@example.com>: STORY-12: drop the scratch file\n\n"
        "## Changed files (net, 2)\n- updated: `README.md`\n- added: `src/shop/discount.py`\n\n"
        "## Decision\n- codes are case-insensitive (src/shop/discount.py § apply)\n\n"
        "## Risk\n- old clients\n\n"
        "## Links\n- ticket: JIRA-1\n")
    data = json.loads(_ok("story", "context", "STORY-12", "--json"))
    assert list(data) == ["story", "commits", "files", "artifacts", "links", "notes"]
    assert list(data["artifacts"]) == ["requirement", "decision", "risk"]
    assert _err(2, "story", "context", "STORY-12", "--json", "--markdown") == \
        "genesis: error: --json and --markdown exclude each other"


def test_context_of_an_empty_story(repo: Path) -> None:
    _ok("story", "set", "STORY-40", "--status", "draft")
    assert _ok("story", "context", "STORY-40").splitlines()[2:] == [
        "", "commits (0):", "  (none)", "", "files (0, net):", "  (none)", "",
        "artifacts:", "  (none)", "", "links:", "  (none)"]
    md = _ok("story", "context", "STORY-40", "--markdown")
    assert "## Requirement\n- (none recorded)\n" in md
    assert "## Commits (0)\n- (none)\n" in md


def test_context_with_code(story_repo: dict[str, Any]) -> None:
    data = json.loads(_ok("story", "context", "STORY-12", "--with-code", "2", "--json"))
    assert 1 <= len(data["code"]) <= 2
    assert {"path", "start_line", "end_line", "score", "text"} <= set(data["code"][0])
    assert any(h["path"] == "src/shop/discount.py" for h in data["code"])
    res = runner.invoke(app, ["story", "context", "STORY-12", "--with-code", "1", "--markdown"])
    assert res.exit_code == 0
    assert "## Relevant code (1)\n\n### `" in res.output
    res = runner.invoke(app, ["story", "context", "STORY-12", "--with-code", "1"])
    assert "relevant code (1):" in res.output


def test_code_search_with_nothing_to_search(repo: Path) -> None:
    from genesis_git.index.session import open_context

    ctx = open_context(repo)
    try:
        assert story_context.search_code(ctx, "  ", 3) == (
            [], ["--with-code skipped: the story has no text to search for"])
    finally:
        ctx.conn.close()
    fence = render_stories.context_markdown({
        "story": {"story_id": "S-1", "title": None, "status": "draft",
                  "baseline_commit_sha": None, "updated_at": "now"},
        "commits": [], "files": [], "artifacts": {}, "links": [], "notes": [],
        "code": [{"path": "a.md", "start_line": 1, "end_line": 2, "score": 1.0,
                  "text": "```py\nx\n```"}]})
    assert "````md\n```py\nx\n```\n````" in fence


def test_net_files_folds_changes() -> None:
    assert story_context.net_files([
        ("a", "added"), ("a", "removed"),          # nets to nothing
        ("b", "added"), ("b", "updated"),          # added
        ("c", "updated"), ("c", "removed"),        # removed
        ("d", "removed"), ("d", "added"),          # updated
        ("e", "added"), ("e", "removed"), ("e", "added"),  # added
    ]) == [{"path": "b", "change": "added"}, {"path": "c", "change": "removed"},
           {"path": "d", "change": "updated"}, {"path": "e", "change": "added"}]


def test_story_texts(story_repo: dict[str, Any], genesis_env: Path) -> None:
    _add_notes(genesis_env, "STORY-12")
    conn = connect(genesis_env / "genesis.db")
    try:
        texts = {sid: (text, paths) for sid, text, paths in story_texts(conn)}
    finally:
        conn.close()
    text, paths = texts["STORY-12"]
    assert text.splitlines() == ["add a discount code", "STORY-12: add a discount code",
                                 "STORY-12: drop the scratch file", "codes are case-insensitive",
                                 "old clients"]
    assert sorted(paths) == ["README.md", "docs/req/orders.md", "src/shop/discount.py", "tmp.txt"]


def test_rebuild_is_idempotent_and_keeps_ledger_only_artifacts(
        story_repo: dict[str, Any], genesis_env: Path) -> None:
    _add_notes(genesis_env, "STORY-12")
    _ok("story", "link", "STORY-12", "--type", "pr", "--target", "#4")
    before = json.loads(_ok("story", "context", "STORY-12", "--json"))
    res = json.loads(_ok("story", "rebuild", "--json"))
    assert (res["links_added"], res["files_added"], res["created"], res["unreachable"]) == (
        0, 0, [], [])
    assert json.loads(_ok("story", "context", "STORY-12", "--json")) | {"story": None} == \
        before | {"story": None}


def test_rebuild_counts_and_prunes_unreachable_commits(story_repo: dict[str, Any]) -> None:
    root, c3 = story_repo["root"], story_repo["c3"]
    git(root, "commit", "-q", "--amend", "-m", "STORY-13: cancel orders, reworded",
        env=dict(os.environ, GENESIS_HOOKS="0"))
    out = _ok("story", "rebuild").splitlines()
    assert out[1] == "1 linked commits are no longer reachable (`genesis story rebuild --prune` " \
                     "drops them)"
    assert _ok("story", "rebuild", "--prune").splitlines()[1] == "pruned 1 unreachable commits"
    commits = json.loads(_ok("story", "context", "STORY-13", "--json"))["commits"]
    assert [c["sha"] for c in commits] == [git(root, "rev-parse", "HEAD").strip()]
    assert c3 not in {c["sha"] for c in commits}


def test_rebuild_binds_notes_written_before_a_failed_hook(repo: Path, genesis_env: Path) -> None:
    conn = connect(genesis_env / "genesis.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES "
                 "('s-9', 'repo', ?, 'active')", (str(repo),))
    conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, summary, "
                 "created_at) VALUES ('s-9', 'repo', 'decision', 'before', "
                 "'2000-01-01T00:00:00.000Z')")
    conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, summary, "
                 "created_at) VALUES ('s-9', 'repo', 'note', 'after', '2999-01-01T00:00:00.000Z')")
    conn.close()
    sha = commit_files(repo, "STORY-50: made while the hook failed", {"x.txt": "x\n"},
                  "-m", "Genesis-Session: s-9")
    res = json.loads(_ok("story", "rebuild", "--json"))
    assert res["notes_bound"] == 1
    rows = sqlite3.connect(genesis_env / "genesis.db").execute(
        "SELECT summary, bound_commit FROM session_artifacts ORDER BY id").fetchall()
    assert rows == [("before", sha), ("after", None)]


def test_fresh_clone_rebuild_then_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    origin = make_repo(tmp_path / "origin", {"README.md": "# x\n"})
    c1 = commit_files(origin, "STORY-12: add orders", {"src/orders.py": "A = 1\n"})
    c2 = commit_files(origin, "STORY-12: orders tests", {"tests/test_orders.py": "def test(): pass\n"})
    git(origin, "checkout", "-q", "-b", "feature")
    c3 = commit_files(origin, "STORY-12: on a branch", {"src/more.py": "B = 2\n"})
    git(origin, "checkout", "-q", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    env = dict(os.environ)
    env.pop("GENESIS_HOME")  # the store lives in the clone's .git: there is none yet
    assert not (clone / ".git" / "genesis").exists()
    cmd = [sys.executable, "-m", "genesis_git"]
    proc = subprocess.run([*cmd, "story", "rebuild"], cwd=clone, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "scanned 4 commits, 3 name a story: 1 stories (1 new), 3 commit links and 3 file changes "
        "added, 0 notes bound"]
    assert (clone / ".git" / "genesis" / "genesis.db").exists()
    proc = subprocess.run([*cmd, "story", "context", "STORY-12", "--json"], cwd=clone, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ctx = json.loads(proc.stdout)
    assert [c["sha"] for c in ctx["commits"]] == [c1, c2, c3]
    assert ctx["files"] == [{"path": "src/more.py", "change": "added"},
                            {"path": "src/orders.py", "change": "added"},
                            {"path": "tests/test_orders.py", "change": "added"}]
    assert ctx["story"]["title"] == "add orders"


def test_rebuild_of_an_empty_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "empty")
    monkeypatch.chdir(root)
    assert _ok("story", "rebuild").strip() == (
        "scanned 0 commits, 0 name a story: 0 stories (0 new), 0 commit links and 0 file changes "
        "added, 0 notes bound")


def test_list_as_a_table_on_a_terminal_and_json_outputs(story_repo: dict[str, Any],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import genesis_git.cli.output as output

    monkeypatch.setattr(output, "stdout_is_tty", lambda: True)
    out = _ok("story", "list")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    rows = {line.split("  ", 1)[0]: line for line in plain.splitlines()}
    assert sorted(rows) == ["STORY-12", "STORY-13"]
    assert rows["STORY-12"].endswith("  add a discount code")
    monkeypatch.setattr(output, "stdout_is_tty", lambda: False)
    data = json.loads(_ok("story", "set", "STORY-12", "--title", "Discount codes", "--json"))
    assert (data["created"], data["story"]["title"]) == (False, "Discount codes")
    data = json.loads(_ok("story", "link", "STORY-12", "--type", "story", "--target", "STORY-13",
                          "--json"))
    assert data == {"story_id": "STORY-12", "type": "story", "target": "STORY-13",
                    "added": True}
    assert _ok("story", "show", "STORY-12").splitlines()[-1] == "link:     story: STORY-13"
    _ok("story", "link", "STORY-12", "--type", "doc", "--target", "docs/a.md",
        "--description", "the spec")
    assert _ok("story", "show", "STORY-12").splitlines()[-1] == \
        "link:     doc: docs/a.md  the spec"
