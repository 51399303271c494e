"""The shared blob cache's tables, ``rag_blob_cache`` and ``rag_chunk_cache``: every read and
write of them.

The cache is keyed by ``(blob_sha, chunker_version, embedder_id)``; a blob and
all its chunks are written in one transaction.  The git hooks use this module
(:func:`missing_blobs`), so it imports only the standard library.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence

    # (id, status, skip_reason, size, content_type, n_chunks)
    BlobRow = tuple[int, str, "str | None", int, "str | None", int]

_PART = 500  # SHAs per IN (...) list


def _parts(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), _PART):
        yield items[i:i + _PART]


def known_blobs(conn: sqlite3.Connection, shas: Sequence[str]) -> set[str]:
    """The SHAs of ``shas`` the cache holds under any chunker and embedder."""
    found: set[str] = set()
    for part in _parts(list(dict.fromkeys(shas))):
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT blob_sha FROM rag_blob_cache WHERE blob_sha IN ({marks})", part))
    return found


def missing_blobs(conn: sqlite3.Connection,
                  entries: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries whose blob the cache has never seen (any chunker, any embedder)."""
    known = known_blobs(conn, [sha for _, sha in entries])
    return [(p, s) for p, s in dict.fromkeys(entries) if s not in known]
