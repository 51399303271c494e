"""The texts of a few chunks, decoded from their blobs' packs and nothing more.

A blob's chunk texts are one compressed pack (:mod:`genesis_git.index.packs`); a
search needs the text of a handful of its chunks (the results it shows, the
candidates of an exact name), so only those are decoded, and each pack only as
far as the last of them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

from genesis_git.index.cache import read_packs
from genesis_git.index.packs import decode_texts_at


def texts_at(conn: sqlite3.Connection, wanted: Mapping[int, Iterable[int]]
             ) -> dict[tuple[int, int], str]:
    """The text of each chunk ``(blob id, ord)`` of ``wanted`` (blob id → ords) that the
    store holds."""
    out: dict[tuple[int, int], str] = {}
    for blob_id, _, pack in read_packs(conn, wanted, ("texts",)):
        for ord_, text in decode_texts_at(pack, wanted[blob_id]).items():
            out[(blob_id, ord_)] = text
    return out
