"""``ledger_records``: every statement on the records of the story ledger kept in the store.

A record waits here with ``in_ref = 0`` until it is written into the ledger ref;
a record read from a ref is stored with ``in_ref = 1``; a ``private`` one never
leaves the clone.  Callers write inside their own transaction; nothing here
begins one.  The git hooks use this module, so it imports only the standard
library.
"""

from __future__ import annotations

from genesis_git.store.blobs import parts

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any


def add(conn: sqlite3.Connection, record_id: str, kind: str, story_id: str | None,
        session_id: str | None, line: str, private: int) -> None:
    """Save a record this clone made (not yet in the ledger ref)."""
    conn.execute("INSERT OR IGNORE INTO ledger_records(id, kind, story_id, session_id, line, "
                 "private) VALUES (?,?,?,?,?,?)",
                 (record_id, kind, story_id, session_id, line, private))


def add_from_ref(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """Save records read from a ledger ref: ``(id, kind, story_id, session_id, line)``."""
    conn.executemany(
        "INSERT OR IGNORE INTO ledger_records(id, kind, story_id, session_id, line, in_ref) "
        "VALUES (?,?,?,?,?,1)", rows)


def known(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """The ids of ``ids`` that the store holds."""
    found: set[str] = set()
    for part in parts(ids):
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(
            f"SELECT id FROM ledger_records WHERE id IN ({marks})", part))
    return found


def line(conn: sqlite3.Connection, record_id: str) -> sqlite3.Row | None:
    """``(line, private)`` of a record."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT line, private FROM ledger_records WHERE id=?", (record_id,)).fetchone()
    return row


def last_shared_line(conn: sqlite3.Connection, story_id: str) -> sqlite3.Row | None:
    """``(line,)`` of the story's last shared record in the fold's order: by clock (a
    record without one counts as its time in milliseconds, counter 0), then id."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT line FROM ledger_records WHERE story_id=? AND private=0 "
        "ORDER BY COALESCE(json_extract(line, '$.hlc[0]'), CAST(ROUND((julianday("
        "json_extract(line, '$.time')) - 2440587.5) * 86400000) AS INTEGER)) DESC, "
        "COALESCE(json_extract(line, '$.hlc[1]'), 0) DESC, id DESC LIMIT 1",
        (story_id,)).fetchone()
    return row


def story_lines(conn: sqlite3.Connection, story_ids: Sequence[str]) -> Iterator[tuple[str, str]]:
    """``(story_id, line)`` of every record of the stories."""
    for part in parts(story_ids):
        yield from conn.execute(
            f"SELECT story_id, line FROM ledger_records WHERE story_id IN "
            f"({','.join('?' * len(part))})", list(part))


def story_counts(conn: sqlite3.Connection, story_ids: Sequence[str]) -> dict[str, int]:
    """How many records the store holds of each story (a story without any is left out)."""
    out: dict[str, int] = {}
    for part in parts(story_ids):
        out.update(conn.execute(
            f"SELECT story_id, COUNT(*) FROM ledger_records WHERE story_id IN "
            f"({','.join('?' * len(part))}) GROUP BY story_id", list(part)).fetchall())
    return out


def pending_lines(conn: sqlite3.Connection) -> list[str]:
    """The lines of the shared records that are not in the ledger ref yet, in id order."""
    return [r[0] for r in conn.execute(
        "SELECT line FROM ledger_records WHERE in_ref=0 AND private=0 ORDER BY id")]


def mark_in_ref(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
    """The records are in the ledger ref now."""
    for part in parts(ids):
        conn.execute(f"UPDATE ledger_records SET in_ref=1 WHERE id IN "
                     f"({','.join('?' * len(part))})", part)


def mark_pending_in_ref(conn: sqlite3.Connection, ids: Sequence[str]) -> None:
    """Of the records, those still waiting for the ledger ref are in it now."""
    for part in parts(ids):
        conn.execute(f"UPDATE ledger_records SET in_ref=1 WHERE in_ref=0 AND id IN "
                     f"({','.join('?' * len(part))})", part)


def repend_shared(conn: sqlite3.Connection) -> int:
    """Every shared record waits for the ledger ref again (the ref was lost); how many."""
    return conn.execute("UPDATE ledger_records SET in_ref=0 WHERE in_ref=1 AND private=0"
                        ).rowcount


def shared_lines(conn: sqlite3.Connection) -> list[str]:
    """The lines of every shared record the store holds (in a ref or not), in id order."""
    return [r[0] for r in conn.execute(
        "SELECT line FROM ledger_records WHERE private=0 ORDER BY id")]


# -- the hybrid logical clock of the records this clone writes ----------------------------

_CLOCK_KEY = "ledger:clock"


def clock(conn: sqlite3.Connection) -> tuple[int, int] | None:
    """The latest clock this clone wrote or read, ``(milliseconds, counter)``; kept in
    ``genesis_kv``, found again from the records when that was cleared."""
    row = conn.execute("SELECT value FROM genesis_kv WHERE key=?", (_CLOCK_KEY,)).fetchone()
    if row is not None:
        ms, _, count = str(row[0]).partition(".")
        if ms.isdigit() and count.isdigit():
            return int(ms), int(count)
    top = conn.execute(
        "SELECT json_extract(line, '$.hlc[0]') AS ms, json_extract(line, '$.hlc[1]') AS n "
        "FROM ledger_records WHERE json_type(line, '$.hlc[0]') = 'integer' "
        "ORDER BY ms DESC, n DESC LIMIT 1").fetchone()
    return (int(top[0]), int(top[1])) if top is not None else None


def set_clock(conn: sqlite3.Connection, value: tuple[int, int]) -> None:
    conn.execute("INSERT INTO genesis_kv(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                 "SET value=excluded.value", (_CLOCK_KEY, f"{value[0]}.{value[1]}"))


def replace_line(conn: sqlite3.Connection, record_id: str, line: str) -> None:
    """A conflicting duplicate: the record's line is the one the fold keeps."""
    conn.execute("UPDATE ledger_records SET line=? WHERE id=?", (line, record_id))


def lines_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, str]:
    """``id -> line`` of the records of ``ids`` that the store holds."""
    out: dict[str, str] = {}
    for part in parts(ids):
        out.update(conn.execute(f"SELECT id, line FROM ledger_records WHERE id IN "
                                f"({','.join('?' * len(part))})", part).fetchall())
    return out
