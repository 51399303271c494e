"""`genesis hooks install | uninstall | status`: shims, .legacy chaining, core.hooksPath, fallbacks."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.config.settings import load_config
from genesis_git.git.repo import find_repo
from genesis_git.hooks import install as inst

from helpers import git, make_repo, write

runner = CliRunner()
HOOKS = ("commit-msg", "post-commit", "post-rewrite", "pre-push")
VENV_BIN = str(Path(sys.executable).parent)


def _links(home: Path) -> list[tuple[str, str]]:
    db = home / "genesis.db"
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return [(r[0], r[1]) for r in conn.execute(
            "SELECT story_id, target_ref FROM story_links WHERE link_type='commit' ORDER BY id")]
    finally:
        conn.close()


def _commit(root: Path, msg: str, rel: str, text: str, env: dict[str, str] | None = None,
            *extra: str) -> subprocess.CompletedProcess[str]:
    write(root, rel, text)
    git(root, "add", rel)
    return subprocess.run(["git", "commit", "-q", "-m", msg, *extra], cwd=root, text=True,
                          capture_output=True, env=env)


def test_install_writes_the_shims_with_id_and_interpreter(repo: Path) -> None:
    res = runner.invoke(app, ["hooks", "install"])
    assert res.exit_code == 0, res.output
    hooks_dir = repo / ".git" / "hooks"
    assert res.output.splitlines() == [
        f"installed {hooks_dir / 'commit-msg'}",
        f"installed {hooks_dir / 'post-commit'}",
        f"installed {hooks_dir / 'post-rewrite'}",
        f"installed {hooks_dir / 'pre-push'}",
        f"python:   {sys.executable}",
    ]
    for name in HOOKS:
        path = hooks_dir / name
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n")
        assert f"# genesis-hook-id: {inst.HOOK_ID}" in text
        assert f"GENESIS_PYTHON={shlex.quote(sys.executable)}\n" in text
        assert os.access(path, os.X_OK)
        assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
    again = runner.invoke(app, ["hooks", "install", "--json"])
    assert again.exit_code == 0
    data = json.loads(again.output)
    assert [h["action"] for h in data["hooks"]] == ["updated"] * 4
    st = json.loads(runner.invoke(app, ["hooks", "status", "--json"]).output)
    assert [(h["hook"], h["state"], h["python_ok"]) for h in st["hooks"]] == [
        (n, "installed", True) for n in HOOKS]


def test_status_text_and_missing(repo: Path) -> None:
    res = runner.invoke(app, ["hooks", "status"])
    assert res.exit_code == 0
    assert res.output.splitlines() == [
        f"hooks folder: {repo / '.git' / 'hooks'}",
        "  commit-msg    missing",
        "  post-commit   missing",
        "  post-rewrite  missing",
        "  pre-push      missing",
        "ledger: not shared, it stays in this clone (`genesis init --share` shares it)",
    ]
    runner.invoke(app, ["hooks", "install"])
    os.chmod(repo / ".git" / "hooks" / "post-commit", 0o644)
    out = runner.invoke(app, ["hooks", "status"]).output.splitlines()
    assert out[2] == f"  post-commit   installed  python: {sys.executable}  (not executable)"


def test_foreign_hooks_are_chained_with_args_and_stdin_and_restored(
        repo: Path, genesis_env: Path) -> None:
    hooks_dir = repo / ".git" / "hooks"
    log = repo.parent / "legacy.log"
    foreign = {}
    for name in HOOKS:
        body = (f'#!/bin/sh\necho "{name} $*" >> {log}\n'
                + (f"cat >> {log}\n" if name == "post-rewrite" else "") + "exit 0\n")
        write(hooks_dir, name, body)
        os.chmod(hooks_dir / name, 0o755)
        foreign[name] = body
    res = runner.invoke(app, ["hooks", "install"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == (
        f"chained   {hooks_dir / 'commit-msg'} (the previous hook runs first as "
        "commit-msg.legacy)")
    for name in HOOKS:
        assert (hooks_dir / f"{name}.legacy").read_text() == foreign[name]
    st = json.loads(runner.invoke(app, ["hooks", "status", "--json"]).output)
    assert {h["state"] for h in st["hooks"]} == {"chained"}

    assert _commit(repo, "STORY-1: first", "a.txt", "a\n").returncode == 0
    old = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--amend", "-m", "STORY-1: first, amended")
    new = git(repo, "rev-parse", "HEAD").strip()
    assert log.read_text().splitlines() == [
        "commit-msg .git/COMMIT_EDITMSG", "post-commit ",
        "commit-msg .git/COMMIT_EDITMSG", "post-commit ",
        "post-rewrite amend", f"{old} {new}",
    ]
    # genesis ran too: the amended commit replaced the first one
    assert _links(genesis_env) == [("STORY-1", new)]

    res = runner.invoke(app, ["hooks", "uninstall"])
    assert res.exit_code == 0
    assert res.output.splitlines() == [
        f"removed, legacy restored: {hooks_dir / n}" for n in HOOKS]
    for name in HOOKS:
        assert (hooks_dir / name).read_text() == foreign[name]
        assert not (hooks_dir / f"{name}.legacy").exists()
    st = json.loads(runner.invoke(app, ["hooks", "status", "--json"]).output)
    assert {h["state"] for h in st["hooks"]} == {"foreign"}
    res = runner.invoke(app, ["hooks", "uninstall"])
    assert res.output.splitlines()[0] == f"foreign, left alone: {hooks_dir / 'commit-msg'}"


def test_a_legacy_commit_msg_that_rejects_still_blocks(repo: Path, genesis_env: Path) -> None:
    hooks_dir = repo / ".git" / "hooks"
    write(hooks_dir, "commit-msg", "#!/bin/sh\necho 'legacy says no' >&2\nexit 1\n")
    os.chmod(hooks_dir / "commit-msg", 0o755)
    runner.invoke(app, ["hooks", "install"])
    proc = _commit(repo, "STORY-2: blocked", "b.txt", "b\n")
    assert proc.returncode == 1
    assert "legacy says no" in proc.stderr
    assert _links(genesis_env) == []


def test_install_refuses_when_hook_and_legacy_are_both_foreign(repo: Path) -> None:
    hooks_dir = repo / ".git" / "hooks"
    for name in ("post-commit", "post-commit.legacy"):
        write(hooks_dir, name, "#!/bin/sh\nexit 0\n")
    res = runner.invoke(app, ["hooks", "install"])
    assert res.exit_code == 1
    assert res.output.strip() == (
        f"genesis: error: both {hooks_dir / 'post-commit'} and "
        f"{hooks_dir / 'post-commit.legacy'} exist and neither was written by genesis "
        "(merge them into one hook or move one aside, then install again)")
    assert not (hooks_dir / "commit-msg").exists()  # nothing was changed


def test_core_hooks_path_refuses_then_installs_there(repo: Path, genesis_env: Path) -> None:
    git(repo, "config", "core.hooksPath", ".githooks")
    res = runner.invoke(app, ["hooks", "install"])
    assert res.exit_code == 1
    assert res.output.strip() == (
        f"genesis: error: core.hooksPath is set (.githooks): git runs hooks from "
        f"{repo / '.githooks'}, not from {repo / '.git' / 'hooks'} (install there with "
        "`genesis hooks install --hooks-path`, or `git config --unset core.hooksPath`)")
    st = runner.invoke(app, ["hooks", "status"]).output.splitlines()
    assert st[0] == f"hooks folder: {repo / '.githooks'} (core.hooksPath = .githooks)"
    res = runner.invoke(app, ["hooks", "install", "--hooks-path"])
    assert res.exit_code == 0, res.output
    assert (repo / ".githooks" / "post-commit").exists()
    assert not (repo / ".git" / "hooks" / "post-commit").exists()
    assert _commit(repo, "STORY-3: via hooksPath", "c.txt", "c\n").returncode == 0
    assert _links(genesis_env) == [("STORY-3", git(repo, "rev-parse", "HEAD").strip())]
    res = runner.invoke(app, ["hooks", "uninstall"])
    assert res.exit_code == 0
    assert not (repo / ".githooks" / "post-commit").exists()


def test_hooks_in_default_folder_reported_inactive_under_hooks_path(repo: Path) -> None:
    runner.invoke(app, ["hooks", "install"])
    git(repo, "config", "core.hooksPath", "elsewhere")
    out = runner.invoke(app, ["hooks", "status"]).output.splitlines()
    assert out[-1] == ("note: genesis hooks in the default folder are not run: "
                       "commit-msg, post-commit, post-rewrite, pre-push")
    found = inst.doctor_findings(find_repo(repo), load_config(repo))
    assert [(f.status, f.fix) for f in found] == [("warn", "genesis hooks install --hooks-path")]
    assert "not run because of core.hooksPath" in found[0].message


def test_worktrees_share_the_hooks(repo: Path, genesis_env: Path) -> None:
    runner.invoke(app, ["hooks", "install"])
    wt = repo.parent / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    st = subprocess.run([sys.executable, "-m", "genesis_git", "hooks", "status", "--json"],
                        cwd=wt, capture_output=True, text=True)
    assert {h["state"] for h in json.loads(st.stdout)["hooks"]} == {"installed"}
    assert _commit(wt, "STORY-4: from a worktree", "w.txt", "w\n").returncode == 0
    assert _links(genesis_env) == [("STORY-4", git(wt, "rev-parse", "HEAD").strip())]


def _env_with_path(path: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = path
    return env


def test_shim_falls_back_to_genesis_on_path(repo: Path, genesis_env: Path) -> None:
    inst.install(find_repo(repo), python="/nonexistent/python3")
    env = _env_with_path(f"{VENV_BIN}:/usr/bin:/bin")
    proc = _commit(repo, "STORY-5: through PATH", "d.txt", "d\n", env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert _links(genesis_env) == [("STORY-5", git(repo, "rev-parse", "HEAD").strip())]
    found = inst.doctor_findings(find_repo(repo), load_config(repo))
    assert [(f.name, f.status) for f in found] == [("hooks", "ok"), ("hooks python", "warn")]


def test_shim_without_genesis_warns_once_and_commits(repo: Path, genesis_env: Path) -> None:
    inst.install(find_repo(repo), python="/nonexistent/python3")
    proc = _commit(repo, "STORY-6: no genesis anywhere", "e.txt", "e\n",
                   _env_with_path("/usr/bin:/bin"))
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        "genesis: warning: commit-msg hook skipped: genesis is not installed for "
        "/nonexistent/python3 and not on PATH",
        "genesis: warning: post-commit hook skipped: genesis is not installed for "
        "/nonexistent/python3 and not on PATH",
    ]
    assert git(repo, "log", "-1", "--format=%s").strip() == "STORY-6: no genesis anywhere"
    assert _links(genesis_env) == []


def test_a_broken_interpreter_never_blocks(repo: Path, tmp_path: Path) -> None:
    broken = tmp_path / "python-broken"
    broken.write_text("#!/bin/sh\necho 'No module named genesis_git' >&2\nexit 1\n")
    broken.chmod(0o755)
    inst.install(find_repo(repo), python=str(broken))
    write(repo, ".genesis.toml", "[story]\nrequire_story = true\n")
    proc = _commit(repo, "no story at all", "f.txt", "f\n")
    assert proc.returncode == 0
    assert "genesis: warning: commit-msg hook failed (exit 1); the commit goes ahead" in \
        proc.stderr.splitlines()


def test_genesis_hooks_0_turns_them_off_but_keeps_legacy(repo: Path, genesis_env: Path) -> None:
    hooks_dir = repo / ".git" / "hooks"
    log = repo.parent / "legacy.log"
    write(hooks_dir, "post-commit", f"#!/bin/sh\necho legacy >> {log}\n")
    os.chmod(hooks_dir / "post-commit", 0o755)
    runner.invoke(app, ["hooks", "install"])
    env = dict(os.environ, GENESIS_HOOKS="0")
    assert _commit(repo, "STORY-7: silent", "g.txt", "g\n", env).returncode == 0
    assert _links(genesis_env) == []
    assert log.read_text() == "legacy\n"
    found = inst.doctor_findings(find_repo(repo), load_config(repo))
    assert ("warn", "GENESIS_HOOKS=0 is set: the hooks do nothing") not in \
        [(f.status, f.message) for f in found]
    os.environ["GENESIS_HOOKS"] = "0"
    try:
        found = inst.doctor_findings(find_repo(repo), load_config(repo))
    finally:
        del os.environ["GENESIS_HOOKS"]
    assert ("warn", "GENESIS_HOOKS=0 is set: the hooks do nothing") in \
        [(f.status, f.message) for f in found]


def test_doctor_reports_hook_state(repo: Path) -> None:
    res = runner.invoke(app, ["doctor"])
    assert f"[warn] hooks: not installed in {repo / '.git' / 'hooks'}" in res.output
    assert "       fix: genesis hooks install" in res.output
    runner.invoke(app, ["hooks", "install"])
    res = runner.invoke(app, ["doctor"])
    assert f"[ok  ] hooks: 4 installed in {repo / '.git' / 'hooks'}" in res.output
    (repo / ".git" / "hooks" / "post-rewrite").unlink()
    found = inst.doctor_findings(find_repo(repo), load_config(repo))
    assert [(f.status, f.message) for f in found] == [
        ("warn", "incomplete: post-rewrite not genesis's")]


def test_uninstall_restores_a_legacy_left_alone(repo: Path) -> None:
    hooks_dir = repo / ".git" / "hooks"
    write(hooks_dir, "post-commit.legacy", "#!/bin/sh\n")
    res = runner.invoke(app, ["hooks", "uninstall", "--json"])
    assert json.loads(res.output)["hooks"] == [
        {"hook": "post-commit", "path": str(hooks_dir / "post-commit"), "action": "restored"}]
    assert (hooks_dir / "post-commit").exists()
    res = runner.invoke(app, ["hooks", "uninstall"])
    assert res.output.splitlines() == [f"foreign, left alone: {hooks_dir / 'post-commit'}"]
    (hooks_dir / "post-commit").unlink()
    assert runner.invoke(app, ["hooks", "uninstall"]).output == "no genesis hooks installed\n"


def test_templates_come_from_the_wheel_folder_first(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "pkg"
    write(pkg / "_hooks", "post-commit",
          "#!/bin/sh\n# from the wheel\nGENESIS_PYTHON=''\nGENESIS_LEGACY_SH=''\n")
    monkeypatch.setattr(inst.resources, "files", lambda _name: pkg)
    assert inst.render("post-commit", "/opt/py thon") == (
        "#!/bin/sh\n# from the wheel\nGENESIS_PYTHON='/opt/py thon'\nGENESIS_LEGACY_SH=''\n")
    assert inst.render("post-commit", "/py", ["/bin/sh", "-e"]).endswith(
        "GENESIS_LEGACY_SH='/bin/sh -e'\n")
    # the editable install falls back to the source tree's hooks/
    monkeypatch.setattr(inst.resources, "files", lambda _name: tmp_path / "nowhere")
    assert "genesis-hook-id" in inst.template_text("commit-msg")
    with pytest.raises(Exception, match="unknown hook 'pre-merge-commit'"):
        inst.template_text("pre-merge-commit")


def test_run_subcommand_is_the_path_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    monkeypatch.chdir(root)
    res = runner.invoke(app, ["hooks", "run", "post-commit"])
    assert res.exit_code == 0
    res = runner.invoke(app, ["hooks", "run", "pre-merge-commit"])
    assert res.exit_code == 2
