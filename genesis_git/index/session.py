"""Sessions: one active session per worktree, mapping its paths to cached blobs.

``start`` resumes the active session of the worktree if there is one (so a
start that was killed half-way is completed by the next one); ``--new`` ends
it first.  A note stays with the session it was written in: an ended session's
pending notes bind to the first story commit made in its worktree after them
(or by hand with ``genesis story bind``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genesis_git.config.settings import Config, load_config
from genesis_git.git.repo import Repo, find_repo
from genesis_git.index.state import is_current
from genesis_git.kernel.errors import GenesisError, NotFound
from genesis_git.store import kv, sessionmap
from genesis_git.store import sessions as session_rows
from genesis_git.store.connect import checkpoint, connect, store_path, transaction

if TYPE_CHECKING:
    from genesis_git.index.indexer import IndexReport, Progress


@dataclass
class Context:
    repo: Repo
    config: Config
    conn: sqlite3.Connection


def open_context(path: Path | str | None = None) -> Context:
    repo = find_repo(path)
    config = load_config(repo.root)
    db = store_path(repo)
    return Context(repo, config, connect(db))



def worktree_key(repo: Repo) -> str:
    return str(repo.root)


def active_session(conn: sqlite3.Connection, repo: Repo) -> sqlite3.Row | None:
    return session_rows.active(conn, worktree_key(repo))


def _new_id() -> str:
    now = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    import secrets

    return f"s-{now}-{secrets.token_hex(2)}"


def _resolve_doc(repo: Repo, doc: str) -> str:
    """The ``--doc`` as a path of the worktree; a file outside it is refused (its text would
    be bound into the ledger without being part of the repository)."""
    p = Path(doc)
    full = p if p.is_absolute() else Path.cwd() / p
    if not full.is_file():
        raise GenesisError(f"--doc {doc}: no such file")
    try:
        return full.resolve().relative_to(repo.root.resolve()).as_posix()
    except ValueError:
        raise GenesisError(f"--doc {doc}: outside the repository ({repo.root})",
                           hint="give a file of this worktree; link an outside document with "
                                "`genesis story link STORY-ID --type doc --target URL-OR-PATH`"
                           ) from None


def start(ctx: Context, *, name: str | None = None, doc: str | None = None, new: bool = False,
          progress: Progress | None = None) -> IndexReport:
    """Start (or resume) the worktree's session and index the working tree into it."""
    source_doc = _resolve_doc(ctx.repo, doc) if doc else None
    current = active_session(ctx.conn, ctx.repo)
    if current is not None and new:
        end(ctx, current["id"])
        current = None
    started = False
    if current is None:
        sid = _new_id()
        try:
            with transaction(ctx.conn):
                session_rows.create(ctx.conn, sid, ctx.repo.project_id, name,
                                    worktree_key(ctx.repo), ctx.repo.branch(), None, source_doc)
            started = True
        except sqlite3.IntegrityError:  # another process started one a moment ago
            current = active_session(ctx.conn, ctx.repo)
            if current is None:  # pragma: no cover
                raise
            sid = current["id"]
    else:
        sid = current["id"]
        if name or source_doc:
            with transaction(ctx.conn):
                session_rows.rename(ctx.conn, sid, name, source_doc)
    from genesis_git.index.indexer import index_session

    # once per start, not per search: a fresh clone's racily clean entries would make
    # every later snapshot hash them again
    ctx.repo.refresh_stat_cache()
    report = index_session(ctx.conn, ctx.repo, ctx.config, sid, progress)
    report.started = started
    _after_write(ctx, report)
    return report


BIG_WRITE_CHUNKS = 2000


def _after_write(ctx: Context, report: IndexReport) -> None:
    """After a large index the WAL holds most of it: fold it into the store and shrink it."""
    if report.chunks >= BIG_WRITE_CHUNKS:
        checkpoint(ctx.conn)


def refresh(ctx: Context, progress: Progress | None = None) -> IndexReport:
    current = active_session(ctx.conn, ctx.repo)
    if current is None:
        raise GenesisError("no active session in this worktree", hint="run `genesis session start`")
    from genesis_git.index.indexer import index_session

    report = index_session(ctx.conn, ctx.repo, ctx.config, current["id"], progress)
    _after_write(ctx, report)
    return report


def ensure_session(ctx: Context, *, refresh: bool = True,
                   announce: Callable[[str], None] | None = None) -> str:
    """The active session id, refreshed; a session is started when there is none."""
    current = active_session(ctx.conn, ctx.repo)
    if current is None:
        report = start(ctx)
        if announce:
            announce(f"no session yet: started {report.session} ({report.files} files indexed)")
        return report.session
    if refresh:
        raw = ctx.repo.snapshot()
        if not is_current(ctx.conn, ctx.repo, raw, ctx.config, current["id"]):
            from genesis_git.index.indexer import index_session

            index_session(ctx.conn, ctx.repo, ctx.config, current["id"], raw=raw)
    return str(current["id"])


def end(ctx: Context, session_id: str | None = None) -> str:
    """End a session; its map (derived data) is dropped, its notes stay in the ledger."""
    if session_id is None:
        current = active_session(ctx.conn, ctx.repo)
        if current is None:
            raise GenesisError("no active session in this worktree")
        session_id = str(current["id"])
    row = get(ctx, session_id)
    if row["status"] != "active":
        raise GenesisError(f"session {session_id} has already ended")
    with transaction(ctx.conn):
        session_rows.mark_ended(ctx.conn, session_id)
        sessionmap.drop(ctx.conn, session_id)
        kv.delete(ctx.conn, "meta", [session_id])
        kv.delete(ctx.conn, "state", [session_id])
    return session_id


def pending_notes(ctx: Context, session_id: str) -> int:
    """Notes of the session that no story holds yet."""
    return session_rows.unbound_count(ctx.conn, session_id)


def get(ctx: Context, session_id: str) -> sqlite3.Row:
    row = session_rows.by_id(ctx.conn, session_id)
    if row is None:
        known = session_rows.recent_ids(ctx.conn)
        hint = ("known: " + ", ".join(known)) if known else "run `genesis session start`"
        raise NotFound(f"unknown session {session_id!r}", hint=hint)
    return row


def summary(ctx: Context, row: sqlite3.Row) -> dict[str, Any]:
    counts = sessionmap.counts(ctx.conn, row["id"])
    by_type = sessionmap.types(ctx.conn, row["id"])
    notes = session_rows.note_counts(ctx.conn, row["id"])
    return {
        "id": row["id"],
        "name": row["name"],
        "status": row["status"],
        "worktree": row["worktree"],
        "branch": row["branch"],
        "head": row["head_sha"],
        "source_doc": row["source_doc"],
        "started_at": row["started_at"],
        "ended_at": row["ended_at"],
        "refreshed_at": row["refreshed_at"],
        "files": counts[0],
        "chunks": counts[1],
        "dirty_files": counts[2],
        "types": by_type,
        "artifacts": notes[0],
        "unbound_artifacts": notes[1],
    }


def list_sessions(ctx: Context, all_worktrees: bool = False) -> list[dict[str, Any]]:
    rows = session_rows.newest_first(ctx.conn, None if all_worktrees else worktree_key(ctx.repo))
    return [summary(ctx, r) for r in rows]
