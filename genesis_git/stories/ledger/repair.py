"""``genesis ledger repair``: a valid ledger ref again, rebuilt from the records every
clone holds, and what ``genesis doctor`` says of the ledger refs.

A ledger ref is broken when it points at something other than a commit, or at a
commit without the ledger's marker file (a foreign commit pushed there by
mistake).  ``sync`` then stops with one line naming this command instead of
asking to run it again.  The repair loses nothing: the store keeps every record
it ever wrote or read, apart from the refs, so the new local ledger is the
remote's good ledger (when it has one) plus every shared record of the store.
A broken remote ref is replaced with ``--force-with-lease`` on exactly the
object that was found there, so that a teammate's good ledger pushed meanwhile
is never overwritten.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from genesis_git.kernel.errors import GenesisError
from genesis_git.kernel.findings import Finding
from genesis_git.kernel.gitrun import no_git_env, run_git
from genesis_git.kernel.transaction import Transaction
from genesis_git.store import ledger as ledger_rows
from genesis_git.stories.ledger import gitref as G
from genesis_git.stories.ledger import records as R
from genesis_git.stories.ledger import view
from genesis_git.stories.ledger.records import Record, Warn
from genesis_git.stories.ledger.sync import (
    _merge_into_local,
    _remember_tip,
    default_remote,
    remotes,
)
from genesis_git.stories.ledger.wire import (
    Deadline,
    _fetch,
    _push,
    ledger_state,
    reason,
    sync_lock,
    tracking_ref,
)

FIX = "run `genesis ledger repair`: it rebuilds the ref from the records this clone holds"


def ref_problems(root: str | Path) -> list[tuple[str, str]]:
    """``(ref, what is wrong)`` of every broken ledger ref: the local one and each
    remote's copy as last fetched."""
    out = G.git(root, "for-each-ref", "--format=%(refname)", "refs/genesis/").decode()
    names = [n for n in out.split() if n == R.LEDGER_REF or
             (n.startswith(R.REMOTES_PREFIX) and n.endswith("/ledger"))]
    found = []
    for name in names:
        wrong = ledger_state(root, name)[1]
        if wrong:
            found.append((name, wrong))
    return found


def doctor_findings(repo: Any, config: Any) -> list[Finding]:
    """The ledger refs: each a genesis ledger, or what is wrong and how to repair it."""
    problems = ref_problems(repo.root)
    if not problems:
        local = G.resolve(repo.root, R.LEDGER_REF)
        copies = len([n for n, _ in G.ledger_refs(repo.root) if n != R.LEDGER_REF])
        what = "refs/genesis/ledger" if local else "no local ledger yet"
        return [Finding("ledger refs", "ok",
                        f"{what}; {copies} remote cop{'y' if copies == 1 else 'ies'}, all valid")]
    return [Finding("ledger refs", "error", f"{name} is broken: {wrong}", FIX)
            for name, wrong in problems]


def _force_push(root: str | Path, remote: str, expect: str, deadline: Deadline) -> str | None:
    """Replace the remote's broken ledger ref, only if it still holds ``expect``; ``None``
    or the remote's reason."""
    proc = run_git(["push", "--porcelain", "--no-verify",
                    f"--force-with-lease={R.LEDGER_REF}:{expect}", remote,
                    f"+{R.LEDGER_REF}:{R.LEDGER_REF}"], root, env=no_git_env(), check=False,
                   timeout=deadline.left())
    if proc.returncode == 0:
        return None
    return reason(proc.stderr.decode("utf-8", "replace") + "\n" +
                  proc.stdout.decode("utf-8", "replace"), proc.returncode)


def repair(conn: sqlite3.Connection, repo: Any, config: Any, remote: str | None = None, *,
           store_dir: Path, warn: Warn | None = None) -> dict[str, Any]:
    """Rebuild the local ledger ref (and the remote's, when sharing) from the records
    this clone holds; see the module's docstring."""
    root = repo.root
    if remote is None:
        remote = default_remote(root, repo.git_dir)
    elif remote not in remotes(root):
        raise GenesisError(f"no remote named {remote!r}", hint="see `git remote -v`")
    share = config.settings.ledger.share
    deadline = Deadline(None, "the repair")
    error = None
    fixed: list[str] = []
    notes: list[str] = []
    remote_fix = ""
    with sync_lock(store_dir, deadline):
        theirs = bad_theirs = None
        if remote is not None:
            error = _fetch(root, remote, deadline)
            theirs, wrong = ledger_state(root, tracking_ref(remote))
            if wrong:
                bad_theirs, theirs = theirs, None
                remote_fix = f"{remote}'s {R.LEDGER_REF} ({wrong})"
        local, wrong = ledger_state(root, R.LEDGER_REF)
        if wrong and local:
            # the store holds every record: the broken ref goes, the ledger is written anew
            G.git(root, "update-ref", "-m", "genesis: ledger repair", "-d", R.LEDGER_REF, local)
            fixed.append(f"{R.LEDGER_REF} ({wrong}, was {local[:12]})")
        lines = ledger_rows.shared_lines(conn)
        records = [Record.from_json(line) for line in lines]
        with Transaction(conn):
            ledger_rows.repend_shared(conn)
        tip = _merge_into_local(root, theirs, records)
        view.mark_written(conn, [r.id for r in records])
        _remember_tip(conn, tip)
        pushed = False
        if remote is not None and share and not error and tip is not None:
            if bad_theirs is not None:
                error = _force_push(root, remote, bad_theirs, deadline)
                pushed = error is None
            elif tip != theirs:
                pushed, _moved, message = _push(root, remote, deadline)
                error = None if pushed else f"{remote} refused the ledger: {message}"
            if error and bad_theirs is not None:
                error = f"{remote} refused the repaired ledger: {error}"
            if pushed:
                G.git(root, "update-ref", "-m", "genesis: ledger repair", tracking_ref(remote),
                      tip)
        if remote_fix and bad_theirs is not None:
            if pushed:
                fixed.append(remote_fix)
            elif not share:
                notes.append(f"sharing is off: {remote_fix} was left as it is "
                             "(`genesis init --share` turns sharing on)")
        view.refresh(conn, root, repo.common_dir, repo.project_id, warn=warn, force=True)
    return {"remote": remote, "share": share, "ledger": tip, "records": len(records),
            "repaired": fixed, "pushed": pushed, "notes": notes, "error": error}
