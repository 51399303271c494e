"""``sessions`` and ``session_artifacts``: every statement on a worktree's sessions and on
the notes written in them.

Callers write inside their own transaction; nothing here begins one.  The git
hooks use this module, so it imports only the standard library.
"""

from __future__ import annotations

from genesis_git.store.blobs import plain_cursor

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any


# -- sessions ------------------------------------------------------------------------------

def active(conn: sqlite3.Connection, worktree: str) -> sqlite3.Row | None:
    """The active session of ``worktree``."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM sessions WHERE worktree=? AND status='active'", (worktree,)).fetchone()
    return row


def by_id(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM sessions WHERE id=?", (session_id,)).fetchone()
    return row


def status(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    """``(status,)`` of the session; ``None`` when there is no such session."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT status FROM sessions WHERE id=?", (session_id,)).fetchone()
    return row


def head(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    """``(head_sha,)`` of the session's last refresh; ``None`` when there is no such session."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT head_sha FROM sessions WHERE id=?", (session_id,)).fetchone()
    return row


def recent_ids(conn: sqlite3.Connection) -> list[str]:
    """The five most recently started sessions."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM sessions ORDER BY started_at DESC LIMIT 5")]


def all_ids(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def active_ids(conn: sqlite3.Connection) -> set[str]:
    """The sessions that are active, in any worktree."""
    return {r[0] for r in plain_cursor(conn).execute(
        "SELECT id FROM sessions WHERE status='active'")}


def newest_first(conn: sqlite3.Connection, worktree: str | None = None) -> list[sqlite3.Row]:
    """The sessions of ``worktree`` (``None``: of every worktree), the newest first."""
    if worktree is None:
        return conn.execute("SELECT * FROM sessions ORDER BY started_at DESC, id DESC").fetchall()
    return conn.execute("SELECT * FROM sessions WHERE worktree=? "
                        "ORDER BY started_at DESC, id DESC", (worktree,)).fetchall()


def counts(conn: sqlite3.Connection) -> sqlite3.Row:
    """``(sessions, active sessions)``."""
    row: sqlite3.Row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(status='active'),0) FROM sessions").fetchone()
    return row


def with_pending_notes(conn: sqlite3.Connection, worktree: str) -> list[sqlite3.Row]:
    """The active session of ``worktree`` and its ended ones with notes still pending, the
    active one first, then by start."""
    return conn.execute(
        "SELECT * FROM sessions s WHERE worktree=? AND (status='active' OR EXISTS (SELECT 1 "
        "FROM session_artifacts a WHERE a.session_id=s.id AND a.bound_commit IS NULL)) "
        "ORDER BY status='active' DESC, started_at, id", (worktree,)).fetchall()


def all_with_pending_notes(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """The sessions of every worktree that hold a pending note, by start."""
    return conn.execute(
        "SELECT * FROM sessions WHERE id IN (SELECT session_id FROM session_artifacts "
        "WHERE bound_commit IS NULL) ORDER BY started_at, id").fetchall()


def create(conn: sqlite3.Connection, session_id: str, project_id: str, name: str | None,
           worktree: str, branch: str | None, head_sha: str | None,
           source_doc: str | None) -> None:
    """A new active session (the schema allows one per worktree: a second raises
    ``sqlite3.IntegrityError``)."""
    conn.execute(
        "INSERT INTO sessions(id, project_id, name, worktree, branch, head_sha, source_doc)"
        " VALUES (?,?,?,?,?,?,?)",
        (session_id, project_id, name, worktree, branch, head_sha, source_doc))


def rename(conn: sqlite3.Connection, session_id: str, name: str | None,
           source_doc: str | None) -> None:
    """Set the name and the ``--doc`` of a session (``None`` keeps the one it has)."""
    conn.execute(
        "UPDATE sessions SET name=COALESCE(?, name), source_doc=COALESCE(?, source_doc) "
        "WHERE id=?", (name, source_doc, session_id))


def mark_ended(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute("UPDATE sessions SET status='ended', ended_at="
                 "strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id=?", (session_id,))


def mark_refreshed(conn: sqlite3.Connection, session_id: str, head_sha: str | None,
                   branch: str | None) -> None:
    conn.execute("UPDATE sessions SET head_sha=?, branch=?, refreshed_at="
                 "strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id=?",
                 (head_sha, branch, session_id))


# -- session_artifacts: the notes ----------------------------------------------------------

def add_note(conn: sqlite3.Connection, session_id: str, project_id: str, role: str,
             path: str | None, section: str | None, summary: str, created_by: str | None,
             created_at: str, private: int, record_id: str) -> int:
    """Insert a note; returns its id."""
    cur = conn.execute(
        "INSERT INTO session_artifacts(session_id, project_id, artifact_role, path, section, "
        "summary, created_by, created_at, private, record_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (session_id, project_id, role, path, section, summary, created_by, created_at,
         private, record_id))
    return int(cur.lastrowid or 0)


def note(conn: sqlite3.Connection, note_id: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM session_artifacts WHERE id=?", (note_id,)).fetchone()
    return row


def note_by_record(conn: sqlite3.Connection, record_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM session_artifacts WHERE record_id=?", (record_id,)).fetchone()
    return row


def note_record(conn: sqlite3.Connection, note_id: int) -> sqlite3.Row | None:
    """``(record_id, private)`` of a note."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT record_id, private FROM session_artifacts WHERE id=?", (note_id,)).fetchone()
    return row


def notes(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """Every note of the session, in the order written."""
    return conn.execute("SELECT * FROM session_artifacts WHERE session_id=? ORDER BY id",
                        (session_id,)).fetchall()


def unbound_notes(conn: sqlite3.Connection, session_id: str,
                  cutoff: str | None = None) -> list[sqlite3.Row]:
    """The session's notes that no commit bound yet (written up to ``cutoff``), in order."""
    sql = "SELECT * FROM session_artifacts WHERE session_id=? AND bound_commit IS NULL"
    args: tuple[Any, ...] = (session_id,)
    if cutoff is not None:
        sql += " AND created_at <= ?"
        args += (cutoff,)
    return conn.execute(sql + " ORDER BY id", args).fetchall()


def has_unbound(conn: sqlite3.Connection, session_id: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM session_artifacts WHERE session_id=? AND bound_commit IS NULL",
        (session_id,)).fetchone() is not None


def unbound_count(conn: sqlite3.Connection, session_id: str) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM session_artifacts WHERE session_id=? AND "
                            "bound_commit IS NULL", (session_id,)).fetchone()[0])


def note_counts(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row:
    """``(notes, unbound notes)`` of the session."""
    row: sqlite3.Row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(bound_commit IS NULL), 0) FROM session_artifacts "
        "WHERE session_id=?", (session_id,)).fetchone()
    return row


def oldest_unbound(conn: sqlite3.Connection, session_ids: Sequence[str]) -> sqlite3.Row | None:
    """``(unix time,)`` of the oldest unbound note of the sessions (``NULL`` when none)."""
    marks = ",".join("?" * len(session_ids))
    row: sqlite3.Row | None = conn.execute(
        "SELECT CAST(strftime('%s', MIN(created_at)) AS INTEGER) FROM session_artifacts "
        f"WHERE bound_commit IS NULL AND session_id IN ({marks})", list(session_ids)).fetchone()
    return row


def bound_to(conn: sqlite3.Connection, sha: str) -> list[int]:
    """The notes that commit ``sha`` bound."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM session_artifacts WHERE bound_commit=?", (sha,))]


def bind(conn: sqlite3.Connection, bindings: Iterable[tuple[str, str, int]]) -> None:
    """``(commit, bound_at, note id)``: the notes are bound."""
    conn.executemany("UPDATE session_artifacts SET bound_commit=?, bound_at=? WHERE id=?",
                     bindings)


def rebind(conn: sqlite3.Connection, old: str, new: str) -> None:
    """The notes that commit ``old`` bound are bound to ``new`` (a rewrite)."""
    conn.execute("UPDATE session_artifacts SET bound_commit=? WHERE bound_commit=?",
                 (new, old))


def unbind(conn: sqlite3.Connection, note_id: int) -> None:
    """The note is pending again."""
    conn.execute("UPDATE session_artifacts SET bound_commit=NULL, bound_at=NULL "
                 "WHERE id=?", (note_id,))


def delete_note(conn: sqlite3.Connection, note_id: int) -> None:
    conn.execute("DELETE FROM session_artifacts WHERE id=?", (note_id,))
