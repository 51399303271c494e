"""``genesis doctor``: a report of what works and how to repair what does not."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from genesis_git.config.settings import Config, load_config
from genesis_git.design import manage
from genesis_git.git.repo import Repo, find_repo, git_version
from genesis_git.hooks import install
from genesis_git.kernel.environment import ENV_HOME
from genesis_git.kernel.errors import GenesisError
from genesis_git.kernel.findings import Finding
from genesis_git.store import connect as store
from genesis_git.store import sessions as session_rows
from genesis_git.store import stories as story_rows
from genesis_git.store.connect import store_path
from genesis_git.store.migrations import MIGRATIONS, applied
from genesis_git.stories import hooklog
from genesis_git.stories.ledger import repair

__all__ = ["Finding", "run_checks"]

MIN_GIT = (2, 25)

# Other parts of genesis add findings through ``doctor_findings(repo, config)``.
PROVIDERS: tuple[tuple[str, Callable[[Repo, Config], list[Finding]]], ...] = (
    ("hooks", install.doctor_findings),
    ("story", hooklog.doctor_findings),
    ("design", manage.doctor_findings),
    ("ledger refs", repair.doctor_findings),
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


SHOWN_PROBLEMS = 3
INTEGRITY_CAP = 100  # PRAGMA integrity_check stops after this many
FROM_SCRATCH = ("`genesis story rebuild --from-scratch` moves it aside, keeps what can still be "
                "read and rebuilds the rest from git")


def _open_for_check(db: Path) -> tuple[sqlite3.Connection, bool]:
    """A read-only connection; ``immutable`` when the folder cannot take the WAL index
    (a read-only store).  The flag says which."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        store.probe(conn)
        return conn, False
    except sqlite3.OperationalError:
        conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True, timeout=5)
        return conn, True


def _writable(db: Path) -> bool:
    import os

    if not (os.access(db, os.W_OK) and os.access(db.parent, os.W_OK)):
        return False
    try:  # root passes os.access; a read-only file system does not pass this
        probe = db.parent / f".genesis-doctor-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def _check_store(repo: Repo) -> list[Finding]:
    db = store_path(repo)
    if db.parent.exists() and not db.parent.is_dir():
        shown = f"GENESIS_HOME={ENV_HOME.raw()}" if ENV_HOME.raw() \
            else str(db.parent)
        return [Finding("store", "error", f"{shown} is a file, not a folder: every command "
                        "that needs the store fails", "point GENESIS_HOME at a folder, or unset it")]
    if not db.exists():
        return [Finding("store", "warn", f"no store at {db}", "run `genesis init`")]
    out: list[Finding] = []
    try:
        conn, immutable = _open_for_check(db)
        # one row can hold many lines: one problem a line, without the "*** in database" heads
        problems = [ln for r in store.integrity_check(conn)
                    for ln in str(r[0]).splitlines() if ln.strip() and not ln.startswith("***")]
        names = applied(conn)
        history = _history_gap(repo, conn) if problems == ["ok"] else None
        conn.close()
    except sqlite3.DatabaseError as exc:
        return [Finding("store", "error", f"{db} cannot be read: {exc}",
                        f"{FROM_SCRATCH}; or move it aside (mv {db} {db}.broken)")]
    writable = not immutable and _writable(db)
    if problems != ["ok"]:
        shown = "; ".join(problems[:SHOWN_PROBLEMS])
        more = f" and {len(problems) - SHOWN_PROBLEMS} more" if len(problems) > SHOWN_PROBLEMS \
            else ""
        count = f"{len(problems)}+" if len(problems) >= INTEGRITY_CAP else str(len(problems))
        out.append(Finding("store", "error",
                           f"integrity check failed, {count} problem(s): {shown}{more}",
                           FROM_SCRATCH))
    elif not writable:
        out.append(Finding("store", "warn", f"{db} is read-only (integrity ok): commands that "
                           "write fail, and hooks keep their bindings waiting in a journal",
                           f"make the file and its folder writable again (chmod u+w {db} "
                           f"{db.parent}); the ledger itself is healthy: keep it"))
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
    if history is not None:
        out.append(history)
    return out


def _history_gap(repo: Repo, conn: sqlite3.Connection, limit: int = 5000) -> Finding:
    """Story commits and ``Genesis-Session`` trailers of the history that the ledger lacks
    (a store deleted and recreated empty by a hook, a clone without a store)."""
    from genesis_git.stories.commits import StoryRules, log_commits, story_ids

    try:
        pattern = StoryRules.from_config(load_config(repo.root)).effective
    except GenesisError:
        pattern = StoryRules().effective
    commits = log_commits(repo, ["HEAD"], ("--no-merges", f"-n{limit}"))
    try:
        linked = set(story_rows.linked_commits(conn))
        sessions = session_rows.all_ids(conn)
    except sqlite3.DatabaseError:  # an empty store: no tables yet
        linked, sessions = set(), set()
    unlinked = [c for c in commits if c.sha not in linked]
    missing = [c for c in unlinked if story_ids(c, pattern)]
    strangers = {c.session_id for c in unlinked if c.session_id and c.session_id not in sessions}
    if not missing and not strangers:
        return Finding("ledger", "ok", f"every story commit of the last {len(commits)} is bound")
    parts = []
    if missing:
        first = missing[-1]
        parts.append(f"{len(missing)} story commit(s) in git history are not in the ledger "
                     f"(e.g. {story_ids(first, pattern)[0]} at {first.sha[:10]})")
    if strangers:
        parts.append(f"{len(strangers)} Genesis-Session trailer(s) name sessions the store does "
                     "not know")
    return Finding("ledger", "warn", "; ".join(parts) + " (was the store deleted or recreated?)",
                   "run `genesis story rebuild`: it reads them back from git log")


def _check_worktrees(repo: Repo) -> Finding:
    """Every worktree of the clone shares the store; list them."""
    try:
        listing = repo.worktree_listing()
    except GenesisError as exc:  # pragma: no cover - git itself was checked above
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
    for part, provider in PROVIDERS:
        try:
            findings.extend(provider(repo, config))
        except GenesisError as exc:
            findings.append(Finding(part, "error", str(exc), exc.hint or ""))
    return findings
