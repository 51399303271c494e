"""Whether a ledger ref moved, from a look at a few files under the git dir.

Every command that opens the store asks this first, so it costs no git process
and imports nothing of the ledger: only when a ref moved does
:func:`genesis_git.stories.ledger.view.refresh` read records.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from genesis_git.store import kv

SIG_KEY = "refs.sig"  # the signature the view last read its refs at (``kv`` "ledger")


def signature(common_dir: str | Path) -> str:
    """What the ledger refs look like on disk: the loose refs under ``refs/genesis`` and
    the packed-refs file's size and time.  Equal signatures mean no ref moved; an empty
    one (a reftable repository) means there is no cheap look."""
    common = str(common_dir)
    if os.path.isdir(os.path.join(common, "reftable")):
        return ""  # no cheap look: always ask git
    parts: list[str] = []
    base = os.path.join(common, "refs", "genesis")
    for folder, dirs, files in os.walk(base):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(folder, name)
            try:
                with open(full, "rb") as fh:
                    parts.append(f"{os.path.relpath(full, base)}={fh.read(100).strip().decode()}")
            except (OSError, UnicodeDecodeError):
                parts.append(f"{name}=?")
    try:
        st = os.stat(os.path.join(common, "packed-refs"))
        parts.append(f"packed={st.st_size}:{st.st_mtime_ns}")
    except OSError:
        pass
    return "|".join(parts) or "none"


def unmoved(conn: sqlite3.Connection, common_dir: str | Path) -> bool:
    """True when the refs look as they did when the view last read them."""
    sig = signature(common_dir)
    return bool(sig) and kv.get(conn, "ledger", SIG_KEY) == sig
