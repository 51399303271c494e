"""``genesis doctor``: a report of what works and how to repair what does not."""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from genesis_git.config import Config, load_config
from genesis_git.db.migrations import MIGRATIONS, applied
from genesis_git.errors import GenesisError
from genesis_git.repo import Repo, find_repo, git_version

MIN_GIT = (2, 25)


@dataclass
class Finding:
    name: str
    status: str  # ok | warn | error
    message: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


# Other parts of genesis add findings through ``doctor_findings(repo, config)``.
PROVIDERS = (
    "genesis_git.hooks.install",
    "genesis_git.story.hooklog",
    "genesis_git.design.library",
)


def _check_git() -> Finding:
    try:
        version = git_version()
    except GenesisError as exc:
        return Finding("git", "error", str(exc), "install git 2.25 or newer")
    shown = ".".join(map(str, version))
    if version < MIN_GIT:
        return Finding("git", "error", f"git {shown} is too old", "install git 2.25 or newer")
    return Finding("git", "ok", f"git {shown}")


def _check_store(repo: Repo) -> list[Finding]:
    from genesis_git.db.connect import store_path

    db = store_path(repo)
    if not db.exists():
        return [Finding("store", "warn", f"no store at {db}", "run `genesis init`")]
    out: list[Finding] = []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        result = conn.execute("PRAGMA integrity_check").fetchone()[0]
        names = applied(conn)
        conn.close()
    except sqlite3.DatabaseError as exc:
        return [Finding("store", "error", f"{db} cannot be read: {exc}",
                        f"move {db} aside (mv {db} {db}.broken) and run `genesis init`; "
                        "then `genesis story rebuild` restores stories from git")]
    if result != "ok":
        out.append(Finding("store", "error", f"integrity check failed: {result}",
                           f"move {db} aside and run `genesis init`, then `genesis story rebuild`"))
    else:
        out.append(Finding("store", "ok", f"{db} (integrity ok)"))
    known = [m.__name__ for m in MIGRATIONS]
    newer = [n for n in names if n not in known]
    missing = [n for n in known if n not in names]
    if newer:
        out.append(Finding("migrations", "error", f"store written by a newer genesis ({newer[-1]})",
                           "upgrade genesis (pip install -U genesis-git)"))
    elif missing:
        out.append(Finding("migrations", "warn", f"{len(missing)} pending: {', '.join(missing)}",
                           "any genesis command applies them; run `genesis init`"))
    else:
        out.append(Finding("migrations", "ok", f"{len(names)} applied, none pending"))
    return out


def _check_worktrees(repo: Repo) -> Finding:
    """Every worktree of the clone shares the store; list them (read with GitPython)."""
    import git

    try:
        listing = git.Repo(repo.root).git.worktree("list", "--porcelain")
    except git.GitError as exc:  # pragma: no cover - git itself was checked above
        return Finding("worktrees", "warn", f"cannot list worktrees: {exc}")
    paths = [line[len("worktree "):] for line in listing.splitlines()
             if line.startswith("worktree ")]
    prunable = sum(1 for line in listing.splitlines() if line.startswith("prunable"))
    message = f"{len(paths)} sharing this store"
    if prunable:
        return Finding("worktrees", "warn", f"{message}; {prunable} prunable",
                       "run `git worktree prune`")
    return Finding("worktrees", "ok", message)


def run_checks(path: Path | str | None = None) -> list[Finding]:
    findings = [_check_git()]
    try:
        repo = find_repo(path)
    except GenesisError as exc:
        findings.append(Finding("repository", "error", str(exc), exc.hint or ""))
        return findings
    findings.append(Finding("repository", "ok", str(repo.root)))
    findings.append(_check_worktrees(repo))
    findings.extend(_check_store(repo))
    config: Config | None = None
    try:
        config = load_config(repo.root)
        where = ", ".join(config.sources) or "defaults"
        findings.append(Finding("config", "ok", f"loaded from {where}"))
    except GenesisError as exc:
        findings.append(Finding("config", "error", str(exc), exc.hint or "fix the config file"))
    if config is None:
        return findings
    for modname in PROVIDERS:
        mod = importlib.import_module(modname)
        provider: Callable[[Repo, Config], list[Finding]] = mod.doctor_findings
        try:
            findings.extend(provider(repo, config))
        except GenesisError as exc:
            findings.append(Finding(modname.rsplit(".", 2)[-2], "error", str(exc), exc.hint or ""))
    return findings
