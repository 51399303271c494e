"""The chunks behind a session index's rows: their ids, their texts, and the rows whose
chunk is the definition of a name (the exact search, :mod:`~genesis_git.search.exact`,
reads them)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import numpy as np

from genesis_git.search.base.build import unique
from genesis_git.search.identifiers import symbol_parts
from genesis_git.search.session_index import SessionIndex
from genesis_git.search.texts import texts_at
from genesis_git.store.blobs import definition_chunks


def chunk_id(idx: SessionIndex, row: int) -> int:
    """The id of the cached chunk behind ``row``."""
    return int(idx.chunk_ids[int(idx.rows_chunk[row])])


def read_texts(conn: sqlite3.Connection, idx: SessionIndex, places: Iterable[tuple[int, int]]
               ) -> dict[tuple[int, int], str]:
    """The texts of the chunks ``(blob id, ord)`` of ``places``, through the index's memo."""
    wanted: dict[int, set[int]] = {}
    for blob_id, ord_ in places:
        wanted.setdefault(blob_id, set()).add(ord_)
    return texts_at(conn, wanted, idx.texts) if wanted else {}


def defining_rows(conn: sqlite3.Connection, idx: SessionIndex, holds: np.ndarray, name: str
                  ) -> dict[int, bool]:
    """The rows among ``holds`` whose chunk is a function, class or method called ``name``,
    each with whether it is top-level (``def diff``, not ``Poly.diff``).  ``echo`` is in
    hundreds of chunks of a project that defines it: its definition may be far down the
    fused order.  A class or function too long for one chunk is chunked in parts of the
    same symbol: only the first part of a file (where ``class Symbol(`` is) is its
    definition, the others are read as texts (the exact search's tiers)."""
    rows = np.flatnonzero(holds)
    ids = idx.chunk_ids[idx.rows_chunk[rows]]
    named = {cid: (symbol, len(parts)) for cid, symbol in
             definition_chunks(conn, unique(ids).tolist(), name)
             if (parts := symbol_parts(symbol))[-1:] == [name]}
    first: dict[tuple[str, str], int] = {}  # a long class is chunked in parts: its first
    for r, cid in zip(rows.tolist(), ids.tolist(), strict=True):
        if cid in named:
            key = (idx.row_path(r), named[cid][0])
            if key not in first or idx.row_start(r) < idx.row_start(first[key]):
                first[key] = r
    return {r: named[chunk_id(idx, r)][1] == 1 for r in first.values()}
