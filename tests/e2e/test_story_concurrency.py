"""Two worktrees of one clone commit at the same time: every commit is bound exactly once.

Under load a hook may find the store busy for longer than it waits: it then leaves the
binding in the journal and says so in one line, and the next hook or genesis command
applies it.  The test does what a user's next command does before it checks anything.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.store.connect import connect
from genesis_git.stories import journal

from helpers import git, write

N = 20
# the one line a hook writes when it leaves its binding in the journal (hooks/run.py)
WAITS = re.compile(r"^genesis: the store is busy or read-only \(.*\); the binding waits in "
                   r".*pending-bindings\.jsonl and the next genesis command applies it$")


def _work(root: Path, story: str, errors: list[str], waited: list[str]) -> None:
    # the hook code is measured by the other tests; measuring 80 hook runs here only slows
    # `make test` down, so coverage does not follow these commits
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS")}
    for i in range(N):
        write(root, f"{story}/{i}.txt", f"{story} {i}\n")
        for args in (["add", f"{story}/{i}.txt"], ["commit", "-q", "-m", f"{story}: change {i}"]):
            proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  env=env)
            lines = proc.stderr.splitlines()
            waited.extend(ln for ln in lines if WAITS.match(ln))
            if proc.returncode != 0 or any(not WAITS.match(ln) for ln in lines):
                errors.append(f"{root.name} {i}: {proc.returncode} {proc.stderr.strip()}")


@pytest.mark.slow
def test_two_worktrees_commit_concurrently(repo: Path, genesis_env: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # what is tested is the ledger; blob indexing has its own tests and would only add load
    monkeypatch.setenv("GENESIS_HOOKS_INDEX", "off")
    inst.install(find_repo(repo), python=sys.executable)
    base = git(repo, "rev-parse", "HEAD").strip()
    wt = repo.parent / "second"
    git(repo, "worktree", "add", "-q", "-b", "second", str(wt))
    conn = connect(genesis_env / "genesis.db")
    for sid, root in (("s-one", repo), ("s-two", wt)):
        conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES (?,?,?,?)",
                     (sid, "repo", str(root), "active"))
        conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role, "
                     "summary) VALUES (?, 'repo', 'decision', ?)", (sid, f"note of {sid}"))
    conn.close()

    errors: list[str] = []
    waited: list[str] = []
    threads = [threading.Thread(target=_work, args=(repo, "ONE-1", errors, waited)),
               threading.Thread(target=_work, args=(wt, "TWO-1", errors, waited))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # the user's next command applies what the hooks left in the journal, then nothing waits
    with Genesis(repo) as g:
        g.stories.all()
    assert journal.pending(genesis_env / "genesis.db") == []

    shas = {"ONE-1": git(repo, "rev-list", "--reverse", f"{base}..main").split(),
            "TWO-1": git(repo, "rev-list", "--reverse", f"{base}..second").split()}
    assert [len(v) for v in shas.values()] == [N, N]
    db = sqlite3.connect(genesis_env / "genesis.db")
    try:
        for story, expected in shas.items():
            linked = [r[0] for r in db.execute(
                "SELECT target_ref FROM story_links WHERE story_id=? AND link_type='commit' "
                "ORDER BY id", (story,))]
            if waited:  # a binding applied from the journal may land after a later one
                assert sorted(linked) == sorted(expected)
            else:
                assert linked == expected
            files = db.execute("SELECT COUNT(*) FROM story_artifacts WHERE story_id=? AND "
                               "source_ref='commit' AND change_type='added'", (story,)).fetchone()
            assert files == (N,)
        assert db.execute("SELECT COUNT(*) FROM story_links").fetchone() == (2 * N,)
        assert db.execute("SELECT target_ref FROM story_links GROUP BY target_ref "
                          "HAVING COUNT(*) > 1").fetchall() == []
        bound = db.execute("SELECT session_id, bound_commit FROM session_artifacts "
                           "ORDER BY session_id").fetchall()
        assert bound == [("s-one", shas["ONE-1"][0]), ("s-two", shas["TWO-1"][0])]
        # each session's note went to its own worktree's story, once
        notes = db.execute("SELECT story_id, summary FROM story_artifacts WHERE doc_id LIKE "
                           "'session-artifact:%' ORDER BY story_id").fetchall()
        assert notes == [("ONE-1", "note of s-one"), ("TWO-1", "note of s-two")]
    finally:
        db.close()
    assert not (genesis_env / "hooks.log").exists()
