"""genesis hooks next to husky 9, lefthook and pre-commit, each installed for real.

husky 9 finds the user's hook from the file name of the hook git runs; chained as
``<hook>.legacy`` it would look for the wrong file and let everything through.
pre-commit runs ``<hook>.legacy`` itself.  The tools are installed once into a cache
outside the repository (``GENESIS_TEST_CACHE``, default: the temp folder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst
from genesis_git.kernel.errors import GenesisError
from genesis_git.store.connect import connect

from helpers import git, write

runner = CliRunner()
CACHE = Path(os.environ.get("GENESIS_TEST_CACHE")
             or Path(tempfile.gettempdir()) / "genesis-test-cache")
REJECT_BAD = 'if grep -q BAD "$1"; then echo "rejected by {tool}"; exit 1; fi\n'


@pytest.fixture(scope="session")
def npm_tools() -> Path:
    """``husky@9`` and ``lefthook@1`` from the npm registry, installed once."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: husky and lefthook come from the npm registry")
    folder = CACHE / "npm"
    if not (folder / "node_modules" / ".bin" / "husky").exists() or \
            not (folder / "node_modules" / ".bin" / "lefthook").exists():
        folder.mkdir(parents=True, exist_ok=True)
        # lefthook's install script runs ``lefthook install`` in the folder npm was started
        # from: start npm in the cache and run no install script, so that it never writes
        # hooks into the repository the tests run in
        env = dict(os.environ, INIT_CWD=str(folder), CI="true")
        proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent",
                               "--ignore-scripts", "--prefix", str(folder), "husky@9",
                               "lefthook@1"],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
    version = json.loads((folder / "node_modules/husky/package.json").read_text())["version"]
    assert version.startswith("9."), version
    return folder / "node_modules"


def _commit(root: Path, msg: str, name: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    write(root, name, msg + "\n")
    git(root, "add", name)
    return subprocess.run(["git", "commit", "-q", "-m", msg], cwd=root, text=True,
                          capture_output=True, env=env, timeout=120)


def _session(root: Path, home: Path) -> None:
    conn = connect(home / "genesis.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree, status) VALUES "
                 "('s-1', 'repo', ?, 'active')", (str(root),))
    conn.close()


def _stories(home: Path) -> list[str]:
    conn = connect(home / "genesis.db")
    try:
        return [r[0] for r in conn.execute("SELECT story_id FROM story_records ORDER BY 1")]
    finally:
        conn.close()


def _states(root: Path) -> dict[str, tuple[str, str | None]]:
    res = runner.invoke(app, ["hooks", "status", "--json"])
    assert res.exit_code == 0, res.output
    return {h["hook"]: (h["state"], h["manager"]) for h in json.loads(res.output)["hooks"]}


def test_husky_9_still_runs_its_commit_msg_check(repo: Path, genesis_env: Path,
                                                 npm_tools: Path) -> None:
    proc = subprocess.run(["node", str(npm_tools / "husky" / "bin.js")], cwd=repo,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "config", "core.hooksPath").strip() == ".husky/_"
    write(repo, ".husky/commit-msg", REJECT_BAD.format(tool="husky"))
    assert _commit(repo, "BAD before genesis", "a.txt").returncode != 0  # husky works
    git(repo, "reset", "-q")
    inst.install(find_repo(repo), follow_hooks_path=True, python=sys.executable)
    _session(repo, genesis_env)
    proc = _commit(repo, "BAD with genesis", "b.txt")
    assert proc.returncode != 0 and "rejected by husky" in proc.stdout + proc.stderr
    assert git(repo, "log", "-1", "--format=%s").strip() == "initial"
    proc = _commit(repo, "STORY-1: good", "b.txt")
    assert proc.returncode == 0, proc.stderr
    assert "Genesis-Session: s-1" in git(repo, "log", "-1", "--format=%B")
    assert _stories(genesis_env) == ["STORY-1"]
    assert _states(repo)["commit-msg"] == ("chained", "husky")
    # an install that chained husky by the old rule is flagged, and a new install mends it
    shim = repo / ".husky" / "_" / "commit-msg"
    shim.write_text(shim.read_text().replace("GENESIS_LEGACY_SH=sh", "GENESIS_LEGACY_SH=''"))
    assert _states(repo)["commit-msg"] == ("misnamed", "husky")
    res = runner.invoke(app, ["doctor", "--json"])
    assert any(c["status"] == "error" and "find their work by file name" in c["message"]
               for c in json.loads(res.output)["checks"])
    inst.install(find_repo(repo), follow_hooks_path=True, python=sys.executable)
    assert _states(repo)["commit-msg"] == ("chained", "husky")
    assert _commit(repo, "BAD again", "c.txt").returncode != 0
    # uninstall gives husky its own file back
    inst.uninstall(find_repo(repo))
    assert shim.read_text() == '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'


def test_lefthook_still_runs_its_commit_msg_check(repo: Path, genesis_env: Path,
                                                  npm_tools: Path) -> None:
    env = dict(os.environ, LEFTHOOK_BIN=str(npm_tools / ".bin" / "lefthook"))
    write(repo, "lefthook.yml", "commit-msg:\n  commands:\n    no-bad:\n      run: sh -c '"
          + REJECT_BAD.format(tool="lefthook").strip().replace('"$1"', "$0")
          + "' {1}\n")
    proc = subprocess.run([env["LEFTHOOK_BIN"], "install"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    inst.install(find_repo(repo), python=sys.executable)
    _session(repo, genesis_env)
    proc = _commit(repo, "BAD with genesis", "b.txt", env=env)
    assert proc.returncode != 0 and "rejected by lefthook" in proc.stdout + proc.stderr
    proc = _commit(repo, "STORY-2: good", "b.txt", env=env)
    assert proc.returncode == 0, proc.stderr
    assert _stories(genesis_env) == ["STORY-2"]
    assert _states(repo)["commit-msg"] == ("chained", "lefthook")


def test_pre_commit_runs_genesis_as_its_legacy_hook(repo: Path, genesis_env: Path,
                                                    pre_commit_bin: Path) -> None:
    write(repo, ".pre-commit-config.yaml", (
        "repos:\n- repo: local\n  hooks:\n  - id: no-bad\n    name: no bad\n"
        "    entry: sh -c '" + REJECT_BAD.format(tool="pre-commit").strip() + "' --\n"
        "    language: system\n    stages: [commit-msg]\n"))
    git(repo, "add", ".pre-commit-config.yaml")
    for kind in ("commit-msg", "post-commit", "post-rewrite"):
        proc = subprocess.run([str(pre_commit_bin), "install", "-t", kind], cwd=repo,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    # pre-commit gives the post-rewrite hook it chains no stdin: refused, nothing changed
    with pytest.raises(GenesisError, match="pre-commit's, and pre-commit runs the hook"):
        inst.install(find_repo(repo), python=sys.executable)
    assert not (repo / ".git/hooks/commit-msg.legacy").exists()
    subprocess.run([str(pre_commit_bin), "uninstall", "-t", "post-rewrite"], cwd=repo,
                   check=True, capture_output=True)
    inst.install(find_repo(repo), python=sys.executable)
    assert "File generated by pre-commit" in (repo / ".git/hooks/commit-msg").read_text()
    assert inst.is_ours(repo / ".git/hooks/commit-msg.legacy")
    _session(repo, genesis_env)
    proc = _commit(repo, "BAD with genesis", "b.txt")
    assert proc.returncode != 0 and "rejected by pre-commit" in proc.stdout + proc.stderr
    assert "migration mode" not in proc.stderr
    proc = _commit(repo, "STORY-3: good", "b.txt")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Genesis-Session: s-1" in git(repo, "log", "-1", "--format=%B")
    assert _stories(genesis_env) == ["STORY-3"]
    states = _states(repo)
    assert states["commit-msg"] == ("chained", "pre-commit")
    assert states["post-commit"] == ("chained", "pre-commit")
    inst.uninstall(find_repo(repo))
    assert not (repo / ".git/hooks/commit-msg.legacy").exists()
    assert "File generated by pre-commit" in (repo / ".git/hooks/commit-msg").read_text()
