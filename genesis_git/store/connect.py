"""Open the store: WAL mode, a busy timeout, foreign keys on, migrations applied."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from genesis_git.git.repo import Repo
from genesis_git.kernel import storepath
from genesis_git.kernel.environment import ENV_HOME
from genesis_git.kernel.errors import StoreError, store_error
from genesis_git.kernel.storepath import (
    DB_NAME,
    LOG_NAME,
    PAGE_SIZE,
    SEARCH_DIR,
    WAL_LIMIT,
    busy_timeout_ms,
)
from genesis_git.kernel.transaction import Transaction
from genesis_git.store.migrations import migrate

__all__ = ["DB_NAME", "LOG_NAME", "PAGE_SIZE", "SEARCH_DIR", "attach_readonly", "busy_timeout_ms",
           "columns", "compact", "connect", "copy_rows", "detach", "integrity_check", "probe",
           "search_base_path", "store_dir", "store_file", "store_path", "transaction"]


def store_dir(repo: Repo) -> Path:
    """``$GENESIS_HOME`` if set, else ``<git common dir>/genesis``."""
    return Path(storepath.store_dir(str(repo.common_dir)))


def store_path(repo: Repo) -> Path:
    return store_dir(repo) / DB_NAME


def store_file(conn: sqlite3.Connection) -> str:
    """The file of ``conn``'s main database ("" for an in-memory one)."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2] or "")
    return ""  # pragma: no cover - every connection has a main database


def search_base_path(conn: sqlite3.Connection, session_id: str) -> Path | None:
    """Where the saved search base of ``session_id`` lives (``None`` for an in-memory store)."""
    db = store_file(conn)
    if not db:
        return None
    return Path(db).parent / SEARCH_DIR / f"{session_id}.idx"


def _make_folder(folder: Path) -> None:
    """The store's folder, created when missing; a file in its place is the user's to fix."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        home = ENV_HOME.raw()
        shown = f"GENESIS_HOME={home}" if home else str(folder)
        raise StoreError(f"{shown} is not a folder",
                         hint="point GENESIS_HOME at a folder, or unset it") from None
    except PermissionError as exc:
        raise StoreError(f"cannot create the store folder {folder}: {exc.strerror}",
                         hint="check the folder's permissions") from None


def checkpoint(conn: sqlite3.Connection) -> None:
    """Copy the WAL into the database and truncate it (after a large write); never fails."""
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error:  # pragma: no cover - busy readers: the next checkpoint does it
        pass


FREE_SHARE = 0.25  # the share of free pages from which ``compact`` gives them back


def compact(conn: sqlite3.Connection, share: float | None = None) -> int:
    """Give the store's free pages back to the file system (``VACUUM``) when they are more than
    ``share`` of it (:data:`FREE_SHARE`); the bytes given back.

    Freed pages are reused by later writes, so the file only shrinks this way:
    after a large ``cache gc``, or after an older store's blobs were packed.
    """
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    if pages == 0 or free <= (FREE_SHARE if share is None else share) * pages:
        return 0
    conn.execute("VACUUM")
    checkpoint(conn)
    return (pages - int(conn.execute("PRAGMA page_count").fetchone()[0])) * page


def connect(path: Path | str, *, create: bool = True, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the pragmas genesis relies on, migrated to the newest schema."""
    path = str(path)
    new = False
    if path != ":memory:":
        p = Path(path)
        if not p.exists() and not create:
            raise StoreError(f"no genesis store at {p}", hint="run `genesis init`")
        _make_folder(p.parent)
        new = not p.exists() or p.stat().st_size == 0
    try:
        if readonly and path != ":memory:":
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                   timeout=busy_timeout_ms() / 1000, isolation_level=None,
                                   check_same_thread=False)
        else:
            conn = sqlite3.connect(path, timeout=busy_timeout_ms() / 1000, isolation_level=None,
                                   check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
        if new and not readonly:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        if not readonly:
            _enable_wal(conn, path)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        # after a checkpoint the WAL file shrinks to this instead of keeping its largest size
        conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
        if not readonly:
            migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise (store_error(exc, path) or StoreError(
            f"the genesis store at {path} cannot be used: {exc}")) from None
    return conn


def _enable_wal(conn: sqlite3.Connection, path: str) -> None:
    """Switch to WAL; two processes creating the store at once may briefly see it locked."""
    deadline = time.monotonic() + busy_timeout_ms() / 1000
    while True:
        try:
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            mode = ""
        if mode == "wal" or path == ":memory:":
            return
        if time.monotonic() > deadline:  # pragma: no cover - a file system without WAL
            raise StoreError(f"{path}: cannot switch the store to WAL mode")
        time.sleep(0.05)  # pragma: no cover - only when another process holds the lock


def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Transaction:
    """One write transaction; ``BEGIN IMMEDIATE`` so that writers queue on the busy timeout."""
    return Transaction(conn, "BEGIN IMMEDIATE" if immediate else "BEGIN")


# -- reading a damaged store -----------------------------------------------------------------

def attach_readonly(conn: sqlite3.Connection, path: str, name: str) -> None:
    """Attach the store file ``path`` read-only as schema ``name``."""
    conn.execute(f"ATTACH DATABASE ? AS {name}", (f"file:{path}?mode=ro",))


def detach(conn: sqlite3.Connection, name: str) -> None:
    conn.execute(f"DETACH DATABASE {name}")


def columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def copy_rows(conn: sqlite3.Connection, source: str, table: str, names: str) -> int:
    """Copy the columns ``names`` (comma-separated) of ``table`` from schema ``source``;
    returns the rows added."""
    cur = conn.execute(f"INSERT OR IGNORE INTO main.{table}({names}) "
                       f"SELECT {names} FROM {source}.{table}")
    return max(cur.rowcount, 0)


def probe(conn: sqlite3.Connection) -> None:
    """Read the schema: raises ``sqlite3.OperationalError`` when the file cannot be read."""
    conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()


def integrity_check(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """The rows of ``PRAGMA integrity_check`` (one ``ok`` for a sound store)."""
    return conn.execute("PRAGMA integrity_check")
