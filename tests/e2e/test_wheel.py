"""The wheel: what it holds, and that it installs and works in a fresh virtual environment."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from genesis_git import __version__

from helpers import ROOT, git, make_repo, write

pytestmark = pytest.mark.slow

HOOKS = ("commit-msg", "post-commit", "post-rewrite", "pre-push")


def _run(args: list[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, args))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build --wheel``; without isolation when hatchling is at hand (fast, offline)."""
    out = tmp_path_factory.mktemp("dist")
    args: list[str | Path] = [sys.executable, "-m", "build", "--wheel", "--outdir", out]
    if importlib.util.find_spec("hatchling") is not None:
        args.append("--no-isolation")
    _run([*args, ROOT], cwd=ROOT)
    wheels = sorted(out.glob("genesis_git-*.whl"))
    assert [w.name for w in wheels] == [f"genesis_git-{__version__}-py3-none-any.whl"]
    return wheels[0]


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_holds_every_module_and_the_entry_point(wheel: Path) -> None:
    names = _names(wheel)
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "genesis_git").rglob("*.py")
               if "__pycache__" not in p.parts}
    assert sorted(modules - names) == []
    assert not any(n.startswith(("tests/", "examples/", "bench/")) for n in names)
    with zipfile.ZipFile(wheel) as zf:
        entry_points = zf.read(f"genesis_git-{__version__}.dist-info/entry_points.txt").decode()
    assert "genesis = genesis_git.cli.main:run" in entry_points


def test_wheel_holds_the_hook_shims(wheel: Path) -> None:
    missing = [h for h in HOOKS if not (ROOT / "hooks" / h).is_file()]
    if missing:
        pytest.skip(f"hooks/{', hooks/'.join(missing)} not in the source tree yet")
    names = _names(wheel)
    assert [h for h in HOOKS if f"genesis_git/_hooks/{h}" not in names] == []


def test_wheel_holds_the_design_rule_cards_and_reader(wheel: Path) -> None:
    design = ROOT / "genesis_git" / "design"
    if not (design / "rules").is_dir():
        pytest.skip("genesis_git/design/rules/ not in the source tree yet")
    names = _names(wheel)
    cards = {p.relative_to(ROOT).as_posix() for p in (design / "rules").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert cards, "genesis_git/design/rules/ holds no rule cards"
    assert sorted(cards - names) == []
    readers = [n for n in names if n.startswith("genesis_git/design/") and n.endswith("query.mjs")]
    assert readers, "the wheel has no genesis_git/design/**/query.mjs"


def _fresh_venv(wheel: Path, root: Path) -> Path:
    """A new venv with the wheel really installed into it.

    The venv is made without pip, and this interpreter's pip installs the wheel
    into it (``pip --python``): that is the same install, without the seconds
    that bootstrapping pip takes.  The wheel's dependencies (typer, rich,
    numpy, …) are not downloaded again: a ``.pth`` file puts this environment's
    site-packages at the end of the new venv's path, so the test runs offline.
    ``genesis_git`` itself can only come from the wheel: the editable install
    of the outer environment is a ``.pth`` file there, which the new venv does
    not process.
    """
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
          "--no-index", "--disable-pip-version-check", wheel])
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    outer = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (Path(site.stdout.strip()) / "_outer_dependencies.pth").write_text("\n".join(outer) + "\n")
    return venv


def test_wheel_installs_into_a_fresh_venv_and_binds_a_commit(wheel: Path, tmp_path: Path) -> None:
    venv = _fresh_venv(wheel, tmp_path)
    genesis = venv / "bin" / "genesis"
    env = {k: v for k, v in os.environ.items()
           if k not in ("GENESIS_HOME", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    assert _run([genesis, "--version"], env=env).stdout == f"genesis {__version__}\n"
    where = _run([venv / "bin" / "python", "-c", "import genesis_git; print(genesis_git.__file__)"],
                 cwd=tmp_path, env=env).stdout.strip()
    assert Path(where).is_relative_to(venv), f"genesis_git imported from {where}, not the wheel"

    repo = make_repo(tmp_path / "repo", {"app.py": "print('hello')\n"})
    init = _run([genesis, "init"], cwd=repo, env=env)
    assert "(created)" in init.stdout
    assert (repo / ".genesis.toml").is_file()
    assert (repo / ".git" / "genesis" / "genesis.db").is_file()

    probe = subprocess.run([genesis, "hooks", "--help"], cwd=repo, env=env, capture_output=True)
    if probe.returncode != 0:
        pytest.skip("`genesis hooks` is not there yet: hooks install, the STORY-1 commit and "
                    "`story context` are checked once it is")
    _run([genesis, "hooks", "install"], cwd=repo, env=env)
    hooks_dir = Path(git(repo, "rev-parse", "--git-path", "hooks").strip())
    hooks_dir = hooks_dir if hooks_dir.is_absolute() else repo / hooks_dir
    assert [h for h in HOOKS if not (hooks_dir / h).is_file()] == []

    write(repo, "app.py", "print('hello, story')\n")
    git(repo, "add", "app.py")
    commit = _run(["git", "commit", "-q", "-m", "STORY-1: first"], cwd=repo, env=env)
    assert "genesis: error" not in commit.stderr
    assert "genesis: internal error" not in commit.stderr

    context = _run([genesis, "story", "context", "STORY-1", "--json"], cwd=repo, env=env)
    data = json.loads(context.stdout)
    assert isinstance(data, dict)
    assert "STORY-1" in context.stdout
    assert "app.py" in context.stdout
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert sha in context.stdout or sha[:12] in context.stdout
