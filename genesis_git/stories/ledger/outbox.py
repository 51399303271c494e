"""The one place where a change of the local ledger also produces its record.

Every write of :mod:`genesis_git.stories.tables` (and the session notes) calls
:func:`emit` inside its own transaction, so that a row of the store and its
record are saved together or not at all.  The record waits in the store's
``ledger_records`` table until ``genesis sync`` (or the pre-push hook) writes it
to the ledger ref; a ``private`` record never leaves the clone.

The hooks import this module on every commit, so it stays as light as they
are: ``os``, ``json``, ``hashlib``, ``base64`` and ``time``, nothing else.  The format of
a record line is defined here (:func:`record_line`) and nowhere else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time

from genesis_git.kernel.environment import ENV_TEST_CLOCK_SKEW
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


def wall_ms() -> int:
    """The wall clock in milliseconds (``GENESIS_TEST_CLOCK_SKEW`` seconds added: tests
    make one clone's clock wrong with it)."""
    return int((time.time() + ENV_TEST_CLOCK_SKEW.number()) * 1000)


def iso(ms: int) -> str:
    """Milliseconds since the epoch as UTC with milliseconds: ``2026-11-30T03:46:19.123Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def now_iso() -> str:
    """UTC with milliseconds, the format of the store's timestamps."""
    return iso(wall_ms())


def tick(last: tuple[int, int] | None, wall: int) -> tuple[int, int]:
    """The next hybrid logical clock after ``last`` (the latest clock written or read):
    the wall time when it is ahead, else ``last`` with its counter one up.  A clock
    never goes back, and a record written after another was read sorts after it, however
    wrong either wall clock is."""
    if last is None or wall > last[0]:
        return (wall, 0)
    return (last[0], last[1] + 1)


def content_id(canonical: bytes) -> str:
    """A record's id: 128 bits of the SHA-256 of its canonical line with an empty id, in
    26 characters of Crockford base 32 (the width of the older time-sorted ids)."""
    # 2 zero bits, the 128 bits, 6 zero bits: the first 26 base-32 digits are the id
    padded = (int.from_bytes(hashlib.sha256(canonical).digest()[:16], "big") << 6
              ).to_bytes(17, "big")
    return base64.b32encode(padded)[:26].translate(_TO_CROCKFORD).decode("ascii")


_TO_CROCKFORD = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", _CROCKFORD.encode())
_EMPTY_ID = '"id":""'


def record_line(rid: str | None, kind: str, story_id: str | None, session_id: str | None,
                author_name: str, author_email: str, at: str, payload: dict[str, Any],
                hlc: tuple[int, int] | None = None) -> str:
    """A record as one line of JSON with sorted keys; UTF-8 text is kept as it is.  With
    ``rid=None`` the id is the record's :func:`content_id`."""
    data: dict[str, Any] = {"id": rid or "", "kind": kind, "story_id": story_id,
                            "session_id": session_id, "author_name": author_name,
                            "author_email": author_email, "time": at, "payload": payload}
    if hlc is not None:
        data["hlc"] = [hlc[0], hlc[1]]
    line = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    if rid:
        return line
    # the first '"id":""' is the record's own key: inside a string every quote is escaped,
    # and the payload's keys come after "id"
    return line.replace(_EMPTY_ID, f'"id":"{content_id(line.encode())}"', 1)


_FROM_CROCKFORD = str.maketrans(_CROCKFORD, "0123456789abcdefghijklmnopqrstuv")


def id_matches(line: str, rid: str) -> bool:
    """Whether the line's id is the hash of its content (the line as written); the id is
    read as a number (``int(..., 32)``) rather than the hash written out."""
    blank = line.replace(f'"id":"{rid}"', _EMPTY_ID, 1)
    if blank == line or len(rid) != 26:
        return False
    try:
        value = int(rid.translate(_FROM_CROCKFORD), 32)
    except ValueError:
        return False
    return value == int.from_bytes(hashlib.sha256(blank.encode()).digest()[:16], "big")


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

class Draft:
    """A record made but not saved yet: its id is known (a row can name it) before the
    caller decides to keep it."""

    __slots__ = ("id", "kind", "story_id", "session_id", "line")

    def __init__(self, rid: str, kind: str, story_id: str | None, session_id: str | None,
                 line: str) -> None:
        self.id, self.kind, self.story_id, self.session_id, self.line = (
            rid, kind, story_id, session_id, line)


def draft(conn: sqlite3.Connection, kind: str, payload: dict[str, Any], *,
          story_id: str | None = None, session_id: str | None = None,
          at: str | None = None) -> Draft:
    """The record of a change, with the next tick of this clone's clock (inside the
    caller's transaction, which keeps the clock's read and write together)."""
    wall = wall_ms()
    hlc = tick(ledger_rows.clock(conn), wall)
    ledger_rows.set_clock(conn, hlc)
    name, email = identity(conn)
    clean = {k: v for k, v in payload.items() if v is not None}
    line = record_line(None, kind, story_id, session_id, name, email, at or iso(wall), clean,
                       hlc)
    at_id = line.index('"id":"') + 6
    return Draft(line[at_id:at_id + 26], kind, story_id, session_id, line)


def save(conn: sqlite3.Connection, rec: Draft, *, private: bool = False) -> str:
    """Keep a drafted record (inside the caller's transaction); returns its id."""
    ledger_rows.add(conn, rec.id, rec.kind, rec.story_id, rec.session_id, rec.line,
                    1 if private else 0)
    return rec.id


def emit(conn: sqlite3.Connection, kind: str, payload: dict[str, Any], *,
         story_id: str | None = None, session_id: str | None = None, private: bool = False,
         at: str | None = None) -> str:
    """Save the record of a change (inside the caller's transaction); returns its id."""
    return save(conn, draft(conn, kind, payload, story_id=story_id, session_id=session_id,
                            at=at), private=private)


def seen(conn: sqlite3.Connection, clocks: list[tuple[int, int]]) -> None:
    """Records read from a ledger ref carry these clocks: this clone's next record sorts
    after all of them."""
    if not clocks:
        return
    top = max(clocks)
    last = ledger_rows.clock(conn)
    if last is None or top > last:
        ledger_rows.set_clock(conn, top)
