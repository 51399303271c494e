"""``rag_session_chunk_map``: which blob each path of a session has, with its metadata.

Every read and write of the map is here; callers write inside their own
transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from genesis_git.store.blobs import plain_cursor

MAP_COLUMNS = ("path", "blob_sha", "blob_id", "artifact_type", "doc_id", "doc_version", "owner",
               "system_component", "last_modified", "staleness_score", "dirty", "mtime_ns", "size")


def previous_state(conn: sqlite3.Connection, session_id: str) -> dict[str, sqlite3.Row]:
    """The session's map rows by path (``sqlite3.Row``: read by column name, built in C)."""
    cur = conn.execute(f"SELECT {', '.join(MAP_COLUMNS)} FROM rag_session_chunk_map "
                       "WHERE session_id=?", (session_id,))
    cur.row_factory = sqlite3.Row
    return {r[0]: r for r in cur}


def has_stale_blobs(conn: sqlite3.Connection, session_id: str, embedder_id: str, chunker: str,
                    max_bytes: int) -> bool:
    """Whether a mapped blob is cached under another embedder or chunker, or was skipped as
    too large when the limit now admits it."""
    return conn.execute(
        "SELECT 1 FROM rag_session_chunk_map m JOIN rag_blob_cache b ON b.id = m.blob_id "
        "WHERE m.session_id=? AND (b.embedder_id<>? OR b.chunker_version<>? OR "
        "(b.skip_reason='too large' AND b.size <= ?)) LIMIT 1",
        (session_id, embedder_id, chunker, max_bytes)).fetchone() is not None


def skipped_paths(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, str]]:
    """``(path, reason)`` of every mapped blob the cache skipped."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT m.path, b.skip_reason FROM rag_session_chunk_map m JOIN rag_blob_cache b "
        "ON b.id = m.blob_id WHERE m.session_id=? AND b.status='skipped'", (session_id,))]


def write(conn: sqlite3.Connection, session_id: str, removed: Sequence[str],
          upserts: Iterable[Mapping[str, Any]]) -> None:
    """Drop the ``removed`` paths and insert or replace the ``upserts`` rows (all columns)."""
    if removed:
        conn.executemany("DELETE FROM rag_session_chunk_map WHERE session_id=? AND path=?",
                         [(session_id, p) for p in removed])
    rows = [(session_id, *[r[k] for k in MAP_COLUMNS]) for r in upserts]
    if rows:
        conn.executemany(
            f"INSERT OR REPLACE INTO rag_session_chunk_map(session_id, {', '.join(MAP_COLUMNS)}) "
            f"VALUES (?, {', '.join('?' * len(MAP_COLUMNS))})", rows)


def drop(conn: sqlite3.Connection, session_id: str) -> None:
    """Forget a session's map (it ended)."""
    conn.execute("DELETE FROM rag_session_chunk_map WHERE session_id=?", (session_id,))


def counts(conn: sqlite3.Connection, session_id: str) -> tuple[int, int, int]:
    """(files, chunks, dirty files) the session maps."""
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(b.n_chunks), 0), COALESCE(SUM(m.dirty), 0) "
        "FROM rag_session_chunk_map m LEFT JOIN rag_blob_cache b ON b.id = m.blob_id "
        "WHERE m.session_id=?", (session_id,)).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def types(conn: sqlite3.Connection, session_id: str) -> dict[str, int]:
    """Files by artifact type."""
    return {r[0]: r[1] for r in conn.execute(
        "SELECT artifact_type, COUNT(*) FROM rag_session_chunk_map WHERE session_id=? "
        "GROUP BY artifact_type ORDER BY artifact_type", (session_id,))}


def chunk_count(conn: sqlite3.Connection, session_id: str) -> int:
    """The chunks of the blobs the session maps, counted once per path."""
    row = conn.execute(
        "SELECT COALESCE(SUM(b.n_chunks), 0) FROM rag_session_chunk_map m "
        "JOIN rag_blob_cache b ON b.id = m.blob_id WHERE m.session_id=?", (session_id,)).fetchone()
    return int(row[0])


def search_rows(conn: sqlite3.Connection, session_id: str) -> list[tuple[Any, ...]]:
    """``(path, blob_id, artifact_type, system_component, owner, staleness_score, blob_sha,
    chunker_version, created_at)`` of every path with a cached blob, in path order."""
    return plain_cursor(conn).execute(
        "SELECT m.path, m.blob_id, m.artifact_type, m.system_component, m.owner, "
        "m.staleness_score, b.blob_sha, b.chunker_version, b.created_at "
        "FROM rag_session_chunk_map m JOIN rag_blob_cache b ON b.id = m.blob_id "
        "WHERE m.session_id=? ORDER BY m.path", (session_id,)).fetchall()


def doc_version(conn: sqlite3.Connection, session_id: str, path: str) -> str | None:
    """The blob the session maps at ``path`` (``None`` when it maps nothing there)."""
    row = conn.execute("SELECT doc_version FROM rag_session_chunk_map "
                       "WHERE session_id=? AND path=?", (session_id, path)).fetchone()
    return None if row is None else row[0]


def paths_and_blobs(conn: sqlite3.Connection, session_id: str
                    ) -> Iterator[tuple[str, str, int | None]]:
    """``(path, artifact_type, blob_id)`` of every path of the session."""
    yield from conn.execute(
        "SELECT path, artifact_type, blob_id FROM rag_session_chunk_map WHERE session_id=?",
        (session_id,))


def path_blobs(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, str]]:
    """``(path, blob SHA)`` of every path of the session."""
    return [(str(r[0]), str(r[1])) for r in conn.execute(
        "SELECT path, blob_sha FROM rag_session_chunk_map WHERE session_id=?", (session_id,))]


def blob_ids(conn: sqlite3.Connection, session_id: str) -> list[int]:
    """The cached blobs the session maps (once per path)."""
    return [int(r[0]) for r in conn.execute(
        "SELECT blob_id FROM rag_session_chunk_map WHERE session_id=? AND blob_id IS NOT NULL",
        (session_id,))]
