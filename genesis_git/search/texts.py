"""The texts of a few chunks, decoded from their blobs' packs and nothing more.

A blob's chunk texts are one compressed pack (:mod:`genesis_git.index.packs`); a
search needs the text of a handful of its chunks (the results it shows, the
candidates of an exact name), so only those are decoded, and each pack only as
far as the last of them.  A session index keeps the texts it read lately
(:class:`TextMemo`, at most :data:`MEMO_CHARS` characters) for as long as it
lives: a long-lived process (the MCP server) gets a new index, and so an empty
memo, whenever the store changes, so a text kept is always the store's.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from genesis_git.index.cache import read_packs
from genesis_git.index.packs import decode_texts_at

MEMO_CHARS = 4_000_000  # characters of chunk text one session index keeps


class TextMemo:
    """Chunk texts by ``(blob id, ord)``, the least recently used dropped first."""

    def __init__(self, limit: int = MEMO_CHARS):
        self.limit = limit
        self._texts: OrderedDict[tuple[int, int], str] = OrderedDict()
        self._chars = 0

    def get(self, key: tuple[int, int]) -> str | None:
        text = self._texts.get(key)
        if text is not None:
            self._texts.move_to_end(key)
        return text

    def put(self, key: tuple[int, int], text: str) -> None:
        if len(text) > self.limit or key in self._texts:
            return
        self._texts[key] = text
        self._chars += len(text)
        while self._chars > self.limit:
            _, dropped = self._texts.popitem(last=False)
            self._chars -= len(dropped)

    def __len__(self) -> int:
        return len(self._texts)


def texts_at(conn: sqlite3.Connection, wanted: Mapping[int, Iterable[int]],
             memo: TextMemo | None = None) -> dict[tuple[int, int], str]:
    """The text of each chunk ``(blob id, ord)`` of ``wanted`` (blob id → ords) that the
    store holds; those ``memo`` keeps are not decoded again, those decoded are kept."""
    out: dict[tuple[int, int], str] = {}
    missing: dict[int, list[int]] = {}
    for blob_id, ords in wanted.items():
        for ord_ in ords:
            kept = memo.get((blob_id, ord_)) if memo is not None else None
            if kept is None:
                missing.setdefault(blob_id, []).append(ord_)
            else:
                out[(blob_id, ord_)] = kept
    if not missing:
        return out
    for blob_id, _, pack in read_packs(conn, missing, ("texts",)):
        for ord_, text in decode_texts_at(pack, missing[blob_id]).items():
            out[(blob_id, ord_)] = text
            if memo is not None:
                memo.put((blob_id, ord_), text)
    return out
