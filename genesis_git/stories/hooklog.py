"""The log of hook failures, and what ``genesis doctor`` says about it.

A hook never fails a commit: the traceback goes to ``hooks.log`` in the store
folder, one line goes to stderr, and the hook exits 0.  When the store folder
itself cannot be written (a read-only disk, ``GENESIS_HOME`` pointing somewhere
impossible), the log goes to ``genesis-hooks.log`` in the git common dir.
``genesis story rebuild`` re-derives what the failed runs missed and then
clears the log.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from genesis_git import __version__
from genesis_git.git.repo import Repo
from genesis_git.kernel.log import log_entry
from genesis_git.kernel.logfile import append_log
from genesis_git.store.connect import store_dir

if TYPE_CHECKING:
    from genesis_git.config.settings import Config
    from genesis_git.kernel.findings import Finding

LOG_NAME = "hooks.log"
FALLBACK_NAME = "genesis-hooks.log"
HEADER = "--- "
MAX_BYTES = 256 * 1024


@dataclass
class Failure:
    when: str
    hook: str
    summary: str


def log_paths(repo: Repo) -> list[Path]:
    """Where failures are written, in order of preference."""
    return [store_dir(repo) / LOG_NAME, repo.common_dir / FALLBACK_NAME]


def record(repo: Repo | None, hook: str, summary: str, detail: str) -> Path | None:
    """Append one failure; returns the file written, or None when nothing could be."""
    if repo is None:
        return None
    entry = log_entry([hook, f"pid={os.getpid()}"], summary, detail, __version__)
    written = append_log(log_paths(repo), entry, rotate_at=MAX_BYTES)
    return Path(written) if written is not None else None


def read_failures(repo: Repo) -> list[tuple[Path, list[Failure]]]:
    out: list[tuple[Path, list[Failure]]] = []
    for path in log_paths(repo):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        found: list[Failure] = []
        for i, line in enumerate(lines):
            if line.startswith(HEADER):
                head = line[len(HEADER):].split()
                summary = lines[i + 1] if i + 1 < len(lines) else ""
                found.append(Failure(head[0] if head else "?", head[1] if len(head) > 1 else "?",
                                     summary))
        if found:
            out.append((path, found))
    return out


def clear(repo: Repo) -> int:
    """Move the logs aside (``*.1``) after a successful rebuild; returns failures cleared."""
    n = 0
    for path, found in read_failures(repo):
        n += len(found)
        try:
            os.replace(path, path.with_name(path.name + ".1"))
        except OSError:  # pragma: no cover - the folder went read-only meanwhile
            pass
    return n


def doctor_findings(repo: Repo, config: Config) -> list[Finding]:
    from genesis_git.kernel.findings import Finding
    from genesis_git.stories import journal

    findings = []
    db = store_dir(repo) / "genesis.db"
    waiting = journal.pending(db)
    if waiting:
        first = waiting[0]
        what = f"{first.get('hook')} {str(first.get('sha') or '')[:10]}".strip()
        findings.append(Finding(
            "pending bindings", "warn",
            f"{len(waiting)} binding(s) wait in {journal.journal_path(db)} ({what}, ...): the "
            "store was busy or read-only when a hook ran",
            "make the store writable if it is not; the next genesis command (e.g. "
            "`genesis story list`) applies them"))
    else:
        findings.append(Finding("pending bindings", "ok", "none"))
    logs = read_failures(repo)
    if not logs:
        return [*findings, Finding("hook failures", "ok", "none recorded")]
    for path, found in logs:
        last = found[-1]
        findings.append(Finding(
            "hook failures", "warn",
            f"{len(found)} hook run(s) failed, last {last.when} in {last.hook}: {last.summary} "
            f"(log: {path})",
            "fix the cause, then run `genesis story rebuild`: it re-reads every story commit "
            "from git log and clears this log"))
    return findings
