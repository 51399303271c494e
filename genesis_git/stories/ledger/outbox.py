"""The one place where a change of the local ledger also produces its record.

Every write of :mod:`genesis_git.stories.tables` (and the session notes) calls
:func:`emit` inside its own transaction, so that a row of the store and its
record are saved together or not at all.  The record waits in the store's
``ledger_records`` table until ``genesis sync`` (or the pre-push hook) writes it
to the ledger ref; a ``private`` record never leaves the clone.

The hooks import this module on every commit, so it stays as light as they
are: ``os``, ``json`` and ``time``, nothing else.  The format of
a record line is defined here (:func:`record_line`) and nowhere else.
"""

from __future__ import annotations

import json
import os
import time

from genesis_git.store import ledger as ledger_rows

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_last = [0, 0]  # the last id's milliseconds and random part: ids of a process increase


def _b32(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def new_id(ms: int | None = None) -> str:
    """A 26-character id: 48 bits of milliseconds and 80 random bits (a ULID), in
    Crockford base 32, so that ids sort by time.  Ids made by one process within the
    same millisecond still increase."""
    now = int(time.time() * 1000) if ms is None else ms
    if ms is None and now <= _last[0]:
        now = _last[0]
        rand = (_last[1] + 1) & ((1 << 80) - 1)
    else:
        rand = int.from_bytes(os.urandom(10), "big")
    if ms is None:
        _last[0], _last[1] = now, rand
    return _b32(now, 10) + _b32(rand, 16)


def now_iso() -> str:
    """UTC with milliseconds, the format of the store's timestamps."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def record_line(rid: str, kind: str, story_id: str | None, session_id: str | None,
                author_name: str, author_email: str, at: str, payload: dict[str, Any]) -> str:
    """A record as one line of JSON with sorted keys; UTF-8 text is kept as it is."""
    return json.dumps({"id": rid, "kind": kind, "story_id": story_id, "session_id": session_id,
                       "author_name": author_name, "author_email": author_email, "time": at,
                       "payload": payload},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# -- who writes ---------------------------------------------------------------------

_identities: dict[str, tuple[str, str]] = {}


def _git_dir_of(conn: sqlite3.Connection) -> str | None:
    """The git dir of the store's clone when the store is in its default place
    (``<git common dir>/genesis/genesis.db``); else ``None`` (the current directory)."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main" and row[2]:
            folder = os.path.dirname(os.path.dirname(os.path.abspath(row[2])))
            if os.path.isfile(os.path.join(folder, "HEAD")):
                return folder
    return None


def identity(conn: sqlite3.Connection) -> tuple[str, str]:
    """``(name, email)`` of the writer: ``GIT_AUTHOR_NAME``/``GIT_AUTHOR_EMAIL`` when set
    (as git does for a commit), else ``user.name``/``user.email`` of git config."""
    env_name, env_email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if env_name and env_email:
        return env_name, env_email
    git_dir = _git_dir_of(conn)
    key = git_dir or os.getcwd()
    if key not in _identities:
        from genesis_git.stories.ledger.gitref import git

        args = ["config", "--get-regexp", r"^user\.(name|email)$"]
        if git_dir:
            args[:0] = [f"--git-dir={git_dir}"]
        found: dict[str, str] = {}
        try:
            out = git(os.getcwd(), *args, check=False)
            code = 0 if out else 1
        except OSError:
            code, out = 1, b""
        if code == 0:
            for line in out.decode("utf-8", "replace").splitlines():
                name, _, value = line.partition(" ")
                found[name.lower()] = value.strip()
        _identities[key] = (found.get("user.name", ""), found.get("user.email", ""))
    name, email = _identities[key]
    return (os.environ.get("GIT_AUTHOR_NAME") or name,
            os.environ.get("GIT_AUTHOR_EMAIL") or email)


def author_text(conn: sqlite3.Connection) -> str | None:
    """``Name <email>``, the form of the store's ``created_by`` columns."""
    name, email = identity(conn)
    if name and email:
        return f"{name} <{email}>"
    return name or email or None


# -- writing ------------------------------------------------------------------------------

def emit(conn: sqlite3.Connection, kind: str, payload: dict[str, Any], *,
         story_id: str | None = None, session_id: str | None = None, private: bool = False,
         rid: str | None = None, at: str | None = None) -> str:
    """Save the record of a change (inside the caller's transaction); returns its id."""
    rid = rid or new_id()
    name, email = identity(conn)
    clean = {k: v for k, v in payload.items() if v is not None}
    line = record_line(rid, kind, story_id, session_id, name, email, at or now_iso(), clean)
    ledger_rows.add(conn, rid, kind, story_id, session_id, line, 1 if private else 0)
    return rid
