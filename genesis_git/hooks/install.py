"""``genesis hooks install | uninstall | status``.

The installed hooks are tiny POSIX shell shims (the top-level ``hooks/``
folder) that call :mod:`genesis_git.hooks.run`.  The installer:

* writes them into the hooks folder of the git *common* dir, so that every
  worktree of the clone gets them;
* recognises its own hooks by their id line (``# genesis-hook-id: …``);
* renames a hook it did not write to ``<hook>.legacy``; the shim runs it first
  with the same arguments and stdin, and ``uninstall`` puts it back;
* records the interpreter it runs under (``sys.executable``), which the shim
  tries before ``genesis`` on ``PATH``;
* refuses when ``core.hooksPath`` sends git elsewhere, unless told to install
  there (``--hooks-path``).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genesis_git.errors import EnvironmentProblem, GenesisError
from genesis_git.repo import Repo

if TYPE_CHECKING:
    from genesis_git.config import Config
    from genesis_git.doctor import Finding

HOOK_NAMES = ("commit-msg", "post-commit", "post-rewrite")
HOOK_ID = "8d1c08e313dbc2234ac3f09bb8d5a77a"
PRIOR_IDS: tuple[str, ...] = ()
ID_MARK = "# genesis-hook-id: "
PYTHON_VAR = "GENESIS_PYTHON="


# -- templates --------------------------------------------------------------------

def template_text(name: str) -> str:
    """A shim template: from the wheel (``genesis_git/_hooks``), else the source tree."""
    if name not in HOOK_NAMES:
        raise GenesisError(f"unknown hook {name!r}")
    try:
        res = resources.files("genesis_git").joinpath("_hooks").joinpath(name)
        if res.is_file():
            return res.read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):  # pragma: no cover
        pass
    import genesis_git

    src = Path(genesis_git.__file__).resolve().parent.parent / "hooks" / name
    if src.is_file():
        return src.read_text(encoding="utf-8")
    raise EnvironmentProblem(f"the {name} hook template is missing from this installation",
                             hint="reinstall genesis-git")


def render(name: str, python: str) -> str:
    """The template with the interpreter filled in."""
    lines = template_text(name).splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(PYTHON_VAR):
            lines[i] = f"{PYTHON_VAR}{shlex.quote(python)}\n"
            break
    else:  # pragma: no cover - the templates always have the line
        raise EnvironmentProblem(f"the {name} hook template has no {PYTHON_VAR} line")
    return "".join(lines)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def is_ours(path: Path) -> bool:
    text = _read(path)
    return any(ID_MARK + hook_id in text for hook_id in (HOOK_ID, *PRIOR_IDS))


def recorded_python(path: Path) -> str | None:
    for line in _read(path).splitlines():
        if line.startswith(PYTHON_VAR):
            parts = shlex.split(line[len(PYTHON_VAR):])
            return parts[0] if parts and parts[0] else None
    return None


# -- where ---------------------------------------------------------------------------

def hooks_path_setting(repo: Repo) -> str | None:
    return repo.config_get("core.hooksPath")


def effective_dir(repo: Repo) -> Path:
    """The folder git runs hooks from (``core.hooksPath`` honoured)."""
    out = repo.git_text("rev-parse", "--git-path", "hooks").strip()
    p = Path(out).expanduser()
    return (p if p.is_absolute() else repo.root / p).resolve()


def target_dir(repo: Repo, follow_hooks_path: bool = False) -> Path:
    default = repo.hooks_dir().resolve()
    setting = hooks_path_setting(repo)
    if setting:
        where = effective_dir(repo)
        if where != default:
            if not follow_hooks_path:
                raise GenesisError(
                    f"core.hooksPath is set ({setting}): git runs hooks from {where}, "
                    f"not from {default}",
                    hint="install there with `genesis hooks install --hooks-path`, "
                         "or `git config --unset core.hooksPath`")
            return where
    return default


# -- install / uninstall ------------------------------------------------------------

def _legacy(path: Path) -> Path:
    return path.with_name(path.name + ".legacy")


def _write_executable(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.genesis-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


def install(repo: Repo, *, follow_hooks_path: bool = False,
            python: str | None = None) -> dict[str, Any]:
    """Write the three shims; a foreign hook is kept as ``<hook>.legacy`` and chained."""
    folder = target_dir(repo, follow_hooks_path)
    python = python or sys.executable
    for name in HOOK_NAMES:  # check everything before changing anything
        path = folder / name
        if os.path.lexists(path) and not is_ours(path) and os.path.lexists(_legacy(path)):
            raise GenesisError(
                f"both {path} and {_legacy(path)} exist and neither was written by genesis",
                hint="merge them into one hook or move one aside, then install again")
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for name in HOOK_NAMES:
        path = folder / name
        action = "installed"
        if os.path.lexists(path):
            if is_ours(path):
                action = "updated"
            else:
                os.replace(path, _legacy(path))
                action = "chained"
        _write_executable(path, render(name, python))
        done.append({"hook": name, "path": str(path), "action": action,
                     "legacy": os.path.lexists(_legacy(path))})
    return {"dir": str(folder), "python": python, "hooks": done}


def uninstall(repo: Repo) -> dict[str, Any]:
    """Remove genesis's shims wherever they are, and put the ``.legacy`` hooks back."""
    folders = [repo.hooks_dir().resolve()]
    if hooks_path_setting(repo):
        where = effective_dir(repo)
        if where not in folders:
            folders.append(where)
    done = []
    for folder in folders:
        for name in HOOK_NAMES:
            path = folder / name
            if not os.path.lexists(path):
                if os.path.lexists(_legacy(path)):
                    os.replace(_legacy(path), path)
                    done.append({"hook": name, "path": str(path), "action": "restored"})
                continue
            if not is_ours(path):
                done.append({"hook": name, "path": str(path), "action": "foreign, left alone"})
                continue
            path.unlink()
            if os.path.lexists(_legacy(path)):
                os.replace(_legacy(path), path)
                done.append({"hook": name, "path": str(path), "action": "removed, legacy restored"})
            else:
                done.append({"hook": name, "path": str(path), "action": "removed"})
    return {"dirs": [str(f) for f in folders], "hooks": done}


# -- status -------------------------------------------------------------------------

@dataclass
class HookState:
    hook: str
    path: str
    state: str  # installed | chained | foreign | missing
    executable: bool
    python: str | None
    python_ok: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def hook_state(folder: Path, name: str) -> HookState:
    path = folder / name
    if not os.path.lexists(path):
        return HookState(name, str(path), "missing", False, None, False)
    if not is_ours(path):
        return HookState(name, str(path), "foreign", os.access(path, os.X_OK), None, False)
    python = recorded_python(path)
    state = "chained" if os.path.lexists(_legacy(path)) else "installed"
    return HookState(name, str(path), state, os.access(path, os.X_OK), python,
                     bool(python) and os.access(str(python), os.X_OK))


def status(repo: Repo) -> dict[str, Any]:
    folder = effective_dir(repo)
    default = repo.hooks_dir().resolve()
    states = [hook_state(folder, name) for name in HOOK_NAMES]
    inactive: list[str] = []
    if folder != default:
        inactive = [s.hook for s in (hook_state(default, n) for n in HOOK_NAMES)
                    if s.state in ("installed", "chained")]
    return {"dir": str(folder), "hooks_path": hooks_path_setting(repo),
            "hooks": [s.as_dict() for s in states], "inactive": inactive,
            "disabled_by_env": os.environ.get("GENESIS_HOOKS", "1") == "0"}


def doctor_findings(repo: Repo, config: Config) -> list[Finding]:
    from genesis_git.doctor import Finding

    st = status(repo)
    hooks = st["hooks"]
    ours = [h for h in hooks if h["state"] in ("installed", "chained")]
    out: list[Finding] = []
    if not ours:
        where = f" (core.hooksPath: {st['hooks_path']})" if st["hooks_path"] else ""
        msg = f"not installed in {st['dir']}{where}"
        if st["inactive"]:
            msg += f"; the ones in {repo.hooks_dir()} are not run because of core.hooksPath"
        fix = "genesis hooks install" + (" --hooks-path" if st["hooks_path"] else "")
        return [Finding("hooks", "warn", msg, fix)]
    missing = [h["hook"] for h in hooks if h["state"] in ("missing", "foreign")]
    if missing:
        out.append(Finding("hooks", "warn", f"incomplete: {', '.join(missing)} not genesis's",
                           "genesis hooks install"))
    else:
        out.append(Finding("hooks", "ok", f"{len(ours)} installed in {st['dir']}"))
    stale = sorted({h["python"] for h in ours if h["python"] and not h["python_ok"]})
    if stale:
        out.append(Finding("hooks python", "warn",
                           f"the recorded interpreter {stale[0]} is gone; the hooks fall back "
                           "to `genesis` on PATH", "genesis hooks install"))
    not_exec = [h["hook"] for h in ours if not h["executable"]]
    if not_exec:
        out.append(Finding("hooks", "warn", f"not executable: {', '.join(not_exec)}",
                           "genesis hooks install"))
    if st["disabled_by_env"]:
        out.append(Finding("hooks", "warn", "GENESIS_HOOKS=0 is set: the hooks do nothing",
                           "unset GENESIS_HOOKS"))
    return out
