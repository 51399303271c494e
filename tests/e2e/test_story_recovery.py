"""Notes bind to the right story when hooks were skipped, and follow a reworded commit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.store.connect import connect

from helpers import commit_files, git, open_session, query

runner = CliRunner()


def _setup(root: Path, home: Path, *notes: str, sid: str = "s-1") -> None:
    open_session(root, home, *notes, sid=sid)


def _session(root: Path, home: Path, sid: str, *notes: str, doc: str | None = None) -> None:
    open_session(root, home, *notes, sid=sid, doc=doc, hooks=False)


_q = query


def _notes_of(home: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sid, summary in _q(home, "SELECT story_id, summary FROM story_artifacts WHERE "
                                 "artifact_role='decision' ORDER BY story_id, id"):
        out.setdefault(sid, []).append(summary)
    return out


def _no_hooks_commit(root: Path, msg: str, name: str) -> str:
    """A commit made where genesis does not run (a GUI client without it on PATH)."""
    env = dict(os.environ, GENESIS_HOOKS="0")
    (root / name).write_text(msg + "\n", encoding="utf-8")
    git(root, "add", name)
    git(root, "commit", "-q", "-m", msg, env=env)
    return git(root, "rev-parse", "HEAD").strip()


def test_notes_bind_to_the_first_story_commit_even_when_its_hooks_did_not_run(
        repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "orders get a discount column")
    s80 = _no_hooks_commit(repo, "STORY-80: discount column", "a.txt")
    assert "Genesis-Session" not in git(repo, "log", "-1", "--format=%B")
    commit_files(repo, "STORY-81: export", {"b.txt": "b\n"})
    assert _notes_of(genesis_env) == {"STORY-80": ["orders get a discount column"]}
    assert _q(genesis_env, "SELECT bound_commit FROM session_artifacts") == [(s80,)]
    links = _q(genesis_env, "SELECT story_id, target_ref FROM story_links ORDER BY id")
    assert ("STORY-80", s80) in links  # the missed commit is recovered with the note
    # a note written after STORY-81 waits for the next story commit
    _session_note(genesis_env, "a later risk")
    commit_files(repo, "STORY-82: more", {"c.txt": "c\n"})
    assert _notes_of(genesis_env)["STORY-82"] == ["a later risk"]


def _session_note(home: Path, text: str, sid: str = "s-1") -> None:
    conn = connect(home / "genesis.db")
    conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, summary) "
                 "VALUES (?, 'repo', 'decision', ?)", (sid, text))
    conn.close()


def test_rebuild_recovers_notes_the_hooks_missed(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a decision", "another")
    _no_hooks_commit(repo, "wip", "w.txt")
    s80 = _no_hooks_commit(repo, "STORY-80: discount column", "a.txt")
    _no_hooks_commit(repo, "STORY-81: export", "b.txt")
    res = runner.invoke(app, ["story", "rebuild", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["notes_bound"] == 2
    assert _notes_of(genesis_env) == {"STORY-80": ["a decision", "another"]}
    assert {r[0] for r in _q(genesis_env, "SELECT bound_commit FROM session_artifacts")} == {s80}
    res = runner.invoke(app, ["story", "rebuild", "--json"])
    assert json.loads(res.output)["notes_bound"] == 0


def test_a_session_ended_before_the_commit_keeps_its_notes_for_it(
        repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a decision")
    res = runner.invoke(app, ["session", "end"])
    assert res.exit_code == 0, res.output
    assert "1 note(s) of s-1 are not bound to a story yet" in res.output
    commit_files(repo, "STORY-80: discount column", {"a.txt": "a\n"})
    _session(repo, genesis_env, "s-2", "the new session's note")
    commit_files(repo, "STORY-81: export", {"b.txt": "b\n"})
    assert _notes_of(genesis_env) == {"STORY-80": ["a decision"],
                                      "STORY-81": ["the new session's note"]}
    assert _q(genesis_env, "SELECT session_id FROM session_artifacts ORDER BY id") == [
        ("s-1",), ("s-2",)]  # each note stays with the session it was written in


def test_story_bind_by_hand(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    commit_files(repo, "STORY-80: discount column", {"a.txt": "a\n"})
    _session_note(genesis_env, "written after the commit")
    res = runner.invoke(app, ["story", "bind", "STORY-80", "--session", "s-1"])
    assert res.exit_code == 0, res.output
    assert "bound 1 note(s) of s-1 to STORY-80" in res.output
    assert _notes_of(genesis_env) == {"STORY-80": ["written after the commit"]}
    res = runner.invoke(app, ["session", "artifacts", "--session", "s-1"])
    assert "bound to STORY-80 by hand" in res.output
    # nothing pending is left for the next story commit
    commit_files(repo, "STORY-81: export", {"b.txt": "b\n"})
    assert "STORY-81" not in _notes_of(genesis_env)
    res = runner.invoke(app, ["story", "bind", "STORY-99"])
    assert res.exit_code == 1 and "unknown story 'STORY-99'" in res.output
    res = runner.invoke(app, ["story", "bind", "STORY-80", "--session", "s-9"])
    assert res.exit_code == 1 and "unknown session 's-9'" in res.output


def test_amend_to_another_story_moves_the_notes(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a decision")
    conn = connect(genesis_env / "genesis.db")
    conn.execute("UPDATE sessions SET source_doc='docs/req/orders.md'")
    conn.close()
    commit_files(repo, "STORY-20: discount", {"a.txt": "a\n"})
    assert _notes_of(genesis_env) == {"STORY-20": ["a decision"]}
    git(repo, "commit", "-q", "--amend", "-m", "STORY-21: discount code")
    assert _notes_of(genesis_env) == {"STORY-21": ["a decision"]}
    assert [r[0] for r in _q(genesis_env, "SELECT story_id FROM story_records")] == ["STORY-21"]
    assert _q(genesis_env, "SELECT story_id, path FROM story_artifacts WHERE "
                           "artifact_role='requirement'") == [("STORY-21", "docs/req/orders.md")]
    # an amend that drops the id puts the note back to pending
    git(repo, "commit", "-q", "--amend", "-m", "discount code")
    assert _notes_of(genesis_env) == {}
    assert _q(genesis_env, "SELECT bound_commit FROM session_artifacts") == [(None,)]
    commit_files(repo, "STORY-22: again", {"b.txt": "b\n"})
    assert _notes_of(genesis_env) == {"STORY-22": ["a decision"]}


def test_reword_in_rebase_moves_the_notes_and_a_story_that_keeps_something_is_a_draft(
        repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, "a decision")
    commit_files(repo, "STORY-30: first", {"a.txt": "a\n"})
    res = runner.invoke(app, ["story", "link", "STORY-30", "--type", "ticket", "--target", "T-1"])
    assert res.exit_code == 0, res.output
    commit_files(repo, "other work", {"b.txt": "b\n"})
    env = dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/reword/'",
               GIT_EDITOR="sed -i '1s/STORY-30/STORY-31/'")
    proc = subprocess.run(["git", "rebase", "-q", "-i", "HEAD~2"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert _notes_of(genesis_env) == {"STORY-31": ["a decision"]}
    assert _q(genesis_env, "SELECT story_id, status FROM story_records ORDER BY story_id") == [
        ("STORY-30", "draft"), ("STORY-31", "in_progress")]


def test_a_commit_dropped_by_reset_is_marked_unreachable(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    kept = commit_files(repo, "STORY-40: kept", {"a.txt": "a\n"})
    gone = commit_files(repo, "STORY-40: dropped", {"b.txt": "b\n"})
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    res = runner.invoke(app, ["story", "context", "STORY-40", "--json"])
    assert res.exit_code == 0, res.output
    assert {c["sha"]: c["reachable"] for c in json.loads(res.output)["commits"]} == {
        kept: True, gone: False}
    res = runner.invoke(app, ["story", "context", "STORY-40"])
    lines = [ln for ln in res.output.splitlines() if "unreachable" in ln]
    assert len(lines) == 1 and gone[:10] in lines[0]
    res = runner.invoke(app, ["story", "context", "STORY-40", "--markdown"])
    assert res.output.count("(unreachable") == 1
    # detached HEAD on the dropped commit: reachable again
    git(repo, "checkout", "-q", gone)
    res = runner.invoke(app, ["story", "context", "STORY-40", "--json"])
    assert all(c["reachable"] for c in json.loads(res.output)["commits"])
