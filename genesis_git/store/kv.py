"""``genesis_kv``: small derived values, each under a namespace and a key.

A value is stored under ``"<namespace>:<key>"`` (or ``"<namespace>"`` for a
namespace with one value).  The namespaces in use:

* ``lastmod`` — the last-modified time of every path at one HEAD;
* ``meta`` — per session, what its path-only map columns depend on;
* ``state`` — per session, a digest of what its last refresh read;
* ``cochange`` — per HEAD, the history impact investigation reads.

Callers write inside their own transaction; nothing here begins one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any


def _name(namespace: str, key: str) -> str:
    if ":" in namespace:
        raise ValueError(f"a namespace has no colon: {namespace!r}")
    return f"{namespace}:{key}" if key else namespace


def get(conn: sqlite3.Connection, namespace: str, key: str = "") -> str | None:
    row = conn.execute("SELECT value FROM genesis_kv WHERE key=?",
                       (_name(namespace, key),)).fetchone()
    return None if row is None else str(row[0])


def put(conn: sqlite3.Connection, namespace: str, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO genesis_kv(key, value) VALUES (?, ?)",
                 (_name(namespace, key), value))


def get_json(conn: sqlite3.Connection, namespace: str, key: str = "") -> Any:
    """The decoded value; ``None`` when it is missing or is not JSON."""
    text = get(conn, namespace, key)
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def put_json(conn: sqlite3.Connection, namespace: str, key: str, value: Any, *,
             compact: bool = False) -> None:
    text = (json.dumps(value, ensure_ascii=False, separators=(",", ":")) if compact
            else json.dumps(value))
    put(conn, namespace, key, text)


def delete(conn: sqlite3.Connection, namespace: str, keys: Iterable[str]) -> None:
    conn.executemany("DELETE FROM genesis_kv WHERE key=?",
                     [(_name(namespace, k),) for k in keys])


def keep_newest(conn: sqlite3.Connection, namespace: str, keep: int) -> None:
    """Delete all but the ``keep`` most recently written keys of ``namespace``."""
    stale = [r[0] for r in conn.execute(
        "SELECT key FROM genesis_kv WHERE key LIKE ? ORDER BY updated_at DESC, key",
        (namespace + ":%",))][keep:]
    conn.executemany("DELETE FROM genesis_kv WHERE key=?", [(k,) for k in stale])
