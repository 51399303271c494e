"""The habits of git tools: ``git genesis``, a template folder that gives every new clone
the hooks, and genesis's hooks added the pre-commit way (``.pre-commit-hooks.yaml``, run by
the real pre-commit from PyPI, installed once into ``GENESIS_TEST_CACHE``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from genesis_git import __version__
from genesis_git.hooks.install import HOOK_ID, HOOK_NAMES

from clones import make_remote
from helpers import ROOT, genesis_cmd, git, write

CACHE = Path(os.environ.get("GENESIS_TEST_CACHE")
             or Path(tempfile.gettempdir()) / "genesis-test-cache")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["GENESIS_HOOKS_INDEX"] = "off"
    env.update(extra)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env or _env(), capture_output=True, text=True,
                          timeout=300)


def _genesis(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([*genesis_cmd(), *args], cwd)


def _script(bin_dir: Path, name: str, target: str) -> Path:
    """The console script that pip writes for ``name = "module:function"``."""
    module, function = target.split(":")
    path = bin_dir / name
    path.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {function}\n"
                    f"sys.exit({function}())\n", encoding="utf-8")
    path.chmod(0o755)
    return path


# -- git genesis ------------------------------------------------------------------------------

def test_git_genesis_runs_genesis_as_a_git_subcommand(repo: Path, tmp_path: Path) -> None:
    tomllib = pytest.importorskip("tomllib")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["scripts"]
    assert scripts["git-genesis"] == scripts["genesis"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir, "git-genesis", scripts["git-genesis"])
    env = _env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    proc = _run(["git", "genesis", "--version"], repo, env)
    assert (proc.returncode, proc.stdout) == (0, f"genesis {__version__}\n"), proc.stderr
    write(repo, "src/orders.py", "def order_total(items):\n    return sum(items)\n")
    sub = repo / "src"
    proc = _run(["git", "genesis", "search", "order", "total"], sub, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("src/orders.py:1-2\t"), proc.stdout
    # git's -C, and genesis's exit code passed through git
    proc = _run(["git", "-C", str(repo), "genesis", "search", "zebra"], tmp_path, env)
    assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr


# -- init.templateDir -------------------------------------------------------------------------

def _ours(path: Path) -> bool:
    return path.is_file() and HOOK_ID in path.read_text(encoding="utf-8")


def test_template_dir_gives_every_new_clone_the_hooks(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    template = tmp_path / "git-template"
    outside = tmp_path / "outside"  # no repository here: the set-up needs none
    outside.mkdir()
    proc = _genesis(outside, "hooks", "install", "--template-dir", str(template))
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()[:4]] == ["installed"] * 4
    assert proc.stderr == ("genesis: git copies these hooks into new clones only once told to: "
                           f"git config --global init.templateDir {template}\n")
    assert all(_ours(template / "hooks" / name) for name in HOOK_NAMES)
    # a clone made before the set-up is told nothing
    git(tmp_path, "clone", "-q", f"file://{remote}", str(tmp_path / "before"))
    assert not (tmp_path / "before/.git/hooks/commit-msg").exists()

    git(outside, "config", "--global", "init.templateDir", str(template))
    again = _genesis(outside, "hooks", "install", "--template-dir", str(template), "--json")
    assert again.returncode == 0 and again.stderr == ""
    result = json.loads(again.stdout)
    assert result["template_active"] is True
    assert [h["action"] for h in result["hooks"]] == ["updated"] * 4

    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(fresh))
    assert all(_ours(fresh / ".git/hooks" / name) for name in HOOK_NAMES)
    status = json.loads(_genesis(fresh, "hooks", "status", "--json").stdout)
    assert {h["hook"]: h["state"] for h in status["hooks"]} == dict.fromkeys(HOOK_NAMES,
                                                                           "installed")
    write(fresh, "app/orders.py", "def total(items, code=None):\n    return sum(items)\n")
    git(fresh, "add", "-A")
    git(fresh, "commit", "-q", "-m", "STORY-3: a discount code")
    ctx = json.loads(_genesis(fresh, "story", "context", "STORY-3", "--json").stdout)
    assert [c["subject"] for c in ctx["commits"]] == ["STORY-3: a discount code"]
    assert [f["path"] for f in ctx["files"]] == ["app/orders.py"]


def test_template_dir_chains_a_hook_already_there(tmp_path: Path) -> None:
    template = tmp_path / "tpl"
    write(template, "hooks/commit-msg", "#!/bin/sh\necho team check\n")
    (template / "hooks/commit-msg").chmod(0o755)
    proc = _genesis(tmp_path, "hooks", "install", "--template-dir", str(template), "--json")
    assert proc.returncode == 0, proc.stderr
    actions = {h["hook"]: h["action"] for h in json.loads(proc.stdout)["hooks"]}
    assert actions["commit-msg"] == "chained"
    assert (template / "hooks/commit-msg.legacy").read_text() == "#!/bin/sh\necho team check\n"
    bad = _genesis(tmp_path, "hooks", "install", "--template-dir", str(template), "--hooks-path")
    assert (bad.returncode, bad.stderr) == (
        2, "genesis: error: --template-dir and --hooks-path exclude each other\n")


# -- pre-commit -------------------------------------------------------------------------------

def test_the_pre_commit_manifest_declares_the_four_hooks(pre_commit_bin: Path) -> None:
    manifest = ROOT / ".pre-commit-hooks.yaml"
    proc = _run([str(pre_commit_bin), "validate-manifest", str(manifest)], ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    python = pre_commit_bin.parent / "python"
    dump = _run([str(python), "-c", "import json, sys, yaml; "
                 "print(json.dumps(yaml.safe_load(open(sys.argv[1]))))", str(manifest)], ROOT)
    hooks = json.loads(dump.stdout)
    assert [(h["id"], h["stages"], h["entry"]) for h in hooks] == [
        (f"genesis-{name}", [name], f"genesis hooks run {name}") for name in HOOK_NAMES]


def _source_repo(dest: Path) -> str:
    """The project as it is now (tracked and new files), committed into a repository of its
    own that pre-commit can clone at a revision."""
    files = git(ROOT, "ls-files", "-z", "-c", "-o", "--exclude-standard").split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "genesis")
    return git(dest, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_pre_commit_runs_genesis_hooks_from_the_manifest(tmp_path: Path,
                                                         pre_commit_bin: Path) -> None:
    source = tmp_path / "genesis-src"
    source.mkdir()
    rev = _source_repo(source)
    remote = make_remote(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{remote}", str(clone))
    write(clone, ".pre-commit-config.yaml", (
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n"
        + "".join(f"      - id: genesis-{name}\n" for name in HOOK_NAMES)))
    env = _env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
               PIP_CACHE_DIR=str(CACHE / "pip"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH")  # the hooks run the genesis that pre-commit installed
    pc = str(pre_commit_bin)
    proc = _run([pc, "install", *[a for n in HOOK_NAMES for a in ("-t", n)]], clone, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _run([pc, "install-hooks"], clone, env)
    if proc.returncode != 0 and any(s in proc.stdout + proc.stderr for s in (
            "NewConnectionError", "Temporary failure in name resolution",
            "No matching distribution found")):
        pytest.skip("genesis's dependencies could not be installed from PyPI")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _genesis(clone, "init").returncode == 0

    def commit(*args: str) -> str:
        done = _run(["git", "commit", "-q", *args], clone, env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    git(clone, "add", "-A")
    out = commit("-m", "STORY-8: hooks through pre-commit")
    assert "genesis (record the commit in the story ledger)" in out
    commit("--amend", "-m", "STORY-8: hooks through pre-commit, amended")
    write(clone, "app/orders.py", "def total(items):\n    return sum(items) * 2\n")
    commit("-am", "STORY-8: double")
    rebase = _run(["git", "rebase", "-q", "-f", "HEAD~2"], clone, env)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    ctx = json.loads(_genesis(clone, "story", "context", "STORY-8", "--json").stdout)
    heads = git(clone, "log", "--format=%H", "-2").split()
    # the amended and the rebased-away commits were followed: only the live ones are left
    assert sorted(c["sha"] for c in ctx["commits"]) == sorted(heads)
    assert all(c["reachable"] for c in ctx["commits"])

    push = _run(["git", "push", "-q", "origin", "HEAD:main"], clone, env)
    assert push.returncode == 0, push.stdout + push.stderr
    assert "genesis (push the shared story ledger along)" in push.stdout + push.stderr
    assert git(remote, "for-each-ref", "--format=%(refname)", "refs/genesis/").strip()


# -- what the wheel installs ---------------------------------------------------------------------

@pytest.mark.slow
def test_the_wheel_installs_git_genesis_and_the_man_page(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("build") is None or importlib.util.find_spec("hatchling") is None:
        pytest.skip("python -m build with hatchling is needed to build the wheel offline")
    out = tmp_path / "dist"
    built = _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                  str(out), str(ROOT)], ROOT)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next(out.glob("genesis_git-*.whl"))
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path).returncode == 0
    done = _run([sys.executable, "-m", "pip", "--python", str(venv / "bin/python"), "install",
                 "--quiet", "--no-deps", "--no-index", "--disable-pip-version-check",
                 str(wheel)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert (venv / "bin/git-genesis").is_file() and (venv / "bin/genesis").is_file()
    page = venv / "share/man/man1/genesis.1"
    assert page.read_text(encoding="utf-8") == (ROOT / "docs/genesis.1").read_text(
        encoding="utf-8")
    if shutil.which("man") is None:
        return
    env = _env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", MANPAGER="cat",
               PAGER="cat", MANWIDTH="80")
    env.pop("MANPATH", None)
    shown = _run(["man", "genesis"], tmp_path, env)  # found next to the venv's bin on PATH
    assert shown.returncode == 0 and shown.stdout.startswith("GENESIS(1)"), shown.stderr
