"""One write transaction of the store, shared by the hooks' light modules and the full
package so that both write the same way.  Standard library only."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    import sqlite3


class Transaction:
    """``BEGIN IMMEDIATE`` (writers queue on the busy timeout), ``COMMIT`` at the end,
    ``ROLLBACK`` when the block raises."""

    def __init__(self, conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> None:
        self.conn = conn
        self.begin = begin

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute(self.begin)
        return self.conn

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")
