"""The store's layout: its file names, where it lives, its page size, busy timeout and
schema version, and the id of the project it belongs to.

:mod:`genesis_git.hooks.runtime` and :mod:`genesis_git.store.connect` both read these
names from here, so the two stay equal by construction.  Standard library only: the
hooks load it on every commit.
"""

from __future__ import annotations

import os

from genesis_git.kernel.environment import ENV_BUSY_TIMEOUT_MS, ENV_HOME

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    import sqlite3

DB_NAME = "genesis.db"
LOG_NAME = "genesis.log"
SEARCH_DIR = "search"  # saved search bases: <store folder>/search/<session>.idx
# chunk rows are a few KB each: 16 KiB pages hold several, and a cold index
# writes 40 % faster than with the default 4 KiB
PAGE_SIZE = 16384
DEFAULT_BUSY_MS = 10_000
WAL_LIMIT = 4 << 20  # bytes of WAL kept after a checkpoint
# the number of migrations in genesis_git.store.migrations; a store whose
# ``PRAGMA user_version`` equals it needs none (tests hold the two equal)
SCHEMA_VERSION = 6


def store_dir(common_dir: str) -> str:
    """``$GENESIS_HOME`` if set, else ``<git common dir>/genesis``."""
    home = ENV_HOME.raw()
    if home:
        return os.path.expanduser(home)
    return os.path.join(common_dir, "genesis")


def project_id(common_dir: str) -> str:
    """Stable for a clone: the main worktree's folder name (the folder of the common dir)."""
    common = common_dir.rstrip("/")
    main = os.path.dirname(common) if os.path.basename(common) == ".git" else common
    return os.path.basename(main)


def busy_timeout_ms() -> int:
    """``$GENESIS_BUSY_TIMEOUT_MS``, else 10 s."""
    return int(ENV_BUSY_TIMEOUT_MS.number())


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version a store records (0 for a blank one)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])
