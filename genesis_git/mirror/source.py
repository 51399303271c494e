"""The repository's ledger records, as cheaply as the mirror needs them.

A mirror run with nothing new must not parse every record: each line of the
ledger's files is written by :meth:`~genesis_git.stories.ledger.records.Record.to_json`
with sorted keys, so its id can be read off the line without parsing it
(``"id"`` comes before the only nested object, ``"payload"``).  Only the lines
the mirror does not hold yet are parsed.  A line that is not in that form is
parsed at once; a malformed one is skipped with one warning, as
:func:`~genesis_git.stories.ledger.gitref.read_records` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

_ID = re.compile(rb"^[0-9A-HJKMNP-TV-Z]{26}$")
_KEY = b'"id":"'


def fast_id(line: bytes) -> str | None:
    """The record id of a canonical record line, or ``None`` when it must be parsed."""
    at = line.find(_KEY)
    payload = line.find(b'"payload":')
    if at < 0 or (0 <= payload < at):
        return None
    rid = line[at + 6:at + 32]
    if line[at + 32:at + 33] != b'"' or not _ID.match(rid):
        return None
    return rid.decode("ascii")


def _warn(message: str) -> None:
    """A warning no result carries: logged (:func:`genesis_git.kernel.log.warn`)."""
    from genesis_git.kernel.log import warn

    warn(message)


def ledger_lines(root: str | Path, warn: Callable[[str], None] = _warn) -> dict[str, Any]:
    """``record id -> raw line`` (or the parsed record, for a line not in canonical form) of
    the local ledger and every remote's copy, each id once."""
    from genesis_git.stories.ledger import gitref as G
    from genesis_git.stories.ledger import records as rl

    out: dict[str, Any] = {}
    bad: list[str] = []
    for name, sha in G.ledger_refs(root):
        files = G.tree_files(root, sha)
        if files is None:
            warn(f"{name} is not a genesis ledger; skipped")
            continue
        wanted = [p for p in files if p != rl.MARKER]
        blobs = G.read_blobs(root, [files[p] for p in wanted])
        for path in wanted:
            for n, raw in enumerate(blobs[files[path]].splitlines(), 1):
                line = raw.strip()
                if not line:
                    continue
                rid = fast_id(line)
                if rid is not None:
                    out.setdefault(rid, line)
                    continue
                try:
                    rec = rl.Record.from_json(line.decode("utf-8"))
                except (ValueError, UnicodeDecodeError) as exc:
                    bad.append(f"{name}:{path} line {n}: {exc}")
                    continue
                out.setdefault(rec.id, rec)
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        warn(f"skipped {len(bad)} malformed ledger record{'s' if len(bad) > 1 else ''}: "
             f"{bad[0]}{more}")
    return out


def pending_lines(store: Path) -> list[bytes]:
    """The records the local store holds that no ledger ref has yet (they wait there for
    ``genesis sync``), private ones left out.  Read-only: the store is not changed, and a
    store without that table (or no store) gives nothing."""
    import sqlite3

    if not store.is_file():
        return []
    try:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error:
        return []
    try:
        rows = conn.execute("SELECT line FROM ledger_records WHERE in_ref = 0 AND private = 0 "
                            "ORDER BY id").fetchall()
    except sqlite3.Error:  # no such table: a store older than the shared ledger
        return []
    finally:
        conn.close()
    return [str(line).encode("utf-8") for (line,) in rows]


def add_lines(out: dict[str, Any], lines: Iterable[bytes]) -> None:
    """Add raw record lines to ``out`` (``id -> line``), keeping what is already there."""
    for line in lines:
        line = line.strip()
        rid = fast_id(line) if line else None
        if rid is not None:
            out.setdefault(rid, line)
        elif line:
            out.setdefault(f"?{len(out)}", line)  # parsed (or refused) when it is sent


def parse(items: Iterable[Any], warn: Callable[[str], None] = _warn) -> list[Any]:
    """The records of raw lines (records already parsed pass through)."""
    from genesis_git.stories.ledger.records import Record

    out = []
    bad = 0
    for item in items:
        if not isinstance(item, bytes):
            out.append(item)
            continue
        try:
            out.append(Record.from_json(item.decode("utf-8")))
        except (ValueError, UnicodeDecodeError):
            bad += 1
    if bad:
        warn(f"skipped {bad} malformed ledger record{'s' if bad > 1 else ''}")
    return out
