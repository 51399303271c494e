"""The shared blob cache's tables, ``rag_blob_cache``, ``rag_chunk_cache``,
``rag_blob_content`` and ``rag_blob_facts``: every read and write of them.

The cache is keyed by ``(blob_sha, chunker_version, embedder_id)``; a blob,
its chunks, its packs and its facts are written in one transaction.  A chunk
row holds the chunk's lines, kind, symbol and section; its text and terms are
in the blob's packs (:mod:`genesis_git.index.packs`).  A blob cached before
the packs existed keeps them in its chunk rows (``text``, ``tokens``,
``embedding``) until it is packed (:func:`legacy_blobs`, :func:`store_packs`).
The git hooks use this module (:func:`missing_blobs`), so it imports only the
standard library.
"""

from __future__ import annotations

from genesis_git.kernel.transaction import Transaction

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

    # (id, status, skip_reason, size, content_type, n_chunks)
    BlobRow = tuple[int, str, "str | None", int, "str | None", int]

_PART = 500  # SHAs per IN (...) list


def parts(items: Sequence[Any], size: int = _PART) -> Iterator[Sequence[Any]]:
    """``items`` in slices of ``size``, one per ``IN (...)`` list."""
    for i in range(0, len(items), size):
        yield items[i:i + size]


def known_blobs(conn: sqlite3.Connection, shas: Sequence[str]) -> set[str]:
    """The SHAs of ``shas`` the cache holds under any chunker and embedder."""
    found: set[str] = set()
    for part in parts(list(dict.fromkeys(shas))):
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT blob_sha FROM rag_blob_cache WHERE blob_sha IN ({marks})", part))
    return found


def missing_blobs(conn: sqlite3.Connection,
                  entries: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries whose blob the cache has never seen (any chunker, any embedder)."""
    known = known_blobs(conn, [sha for _, sha in entries])
    return [(p, s) for p, s in dict.fromkeys(entries) if s not in known]


def lookup(conn: sqlite3.Connection, shas: Iterable[str], embedder_id: str,
           chunker: str) -> dict[str, BlobRow]:
    """The cache rows of ``shas`` under one chunker and embedder, by SHA."""
    found: dict[str, BlobRow] = {}
    for part in parts(list(shas)):
        marks = ",".join("?" * len(part))
        for row in conn.execute(
                f"SELECT id, blob_sha, status, skip_reason, size, content_type, n_chunks "
                f"FROM rag_blob_cache WHERE chunker_version=? AND embedder_id=? "
                f"AND blob_sha IN ({marks})", (chunker, embedder_id, *part)):
            found[row[1]] = (row[0], row[2], row[3], row[4], row[5], row[6])
    return found


def write(conn: sqlite3.Connection, items: Iterable[Any], embedder_id: str, chunker: str,
          redo: Sequence[str] = ()) -> int:
    """Insert blobs with their chunks, packs and facts (inside the caller's transaction);
    returns chunks written.

    Each item has ``sha``, ``size``, ``status``, ``skip_reason``, ``language``,
    ``content_type``, ``chunks`` (rows of ``ord, start_line, end_line, section,
    symbol, kind``), the packs ``texts``, ``terms`` and ``vectors`` (``format``
    is the packs' format) and ``facts`` (``(version, facts)`` or ``None``).  A
    blob another process cached first is left as it is.  ``redo`` lists SHAs
    whose "too large" rows are replaced.
    """
    written = 0
    if redo:
        conn.execute("DELETE FROM rag_blob_cache WHERE chunker_version=? AND embedder_id=? AND "
                     f"skip_reason='too large' AND blob_sha IN ({','.join('?' * len(redo))})",
                     (chunker, embedder_id, *redo))
    for p in items:
        cur = conn.execute(
            "INSERT OR IGNORE INTO rag_blob_cache(blob_sha, chunker_version, embedder_id, size, "
            "status, skip_reason, language, content_type, n_chunks) VALUES (?,?,?,?,?,?,?,?,?)",
            (p.sha, chunker, embedder_id, p.size, p.status, p.skip_reason, p.language,
             p.content_type, len(p.chunks)))
        if cur.rowcount == 0:  # another process cached it first
            continue
        blob_id = cur.lastrowid
        assert blob_id is not None
        conn.executemany(
            "INSERT INTO rag_chunk_cache(blob_id, ord, start_line, end_line, section, symbol, "
            "kind, text, tokens) VALUES (?,?,?,?,?,?,?,'','')", [(blob_id, *row) for row in p.chunks])
        if p.texts is not None:
            conn.execute("INSERT INTO rag_blob_content(blob_id, format, texts, terms, vectors) "
                         "VALUES (?,?,?,?,?)", (blob_id, p.format, p.texts, p.terms, p.vectors))
        if p.facts is not None:
            conn.execute("INSERT OR REPLACE INTO rag_blob_facts(blob_id, version, facts) "
                         "VALUES (?,?,?)", (blob_id, *p.facts))
        written += len(p.chunks)
    return written


def counts(conn: sqlite3.Connection) -> dict[str, Any]:
    """What ``genesis cache stats`` reports of the cache tables."""
    blobs = conn.execute("SELECT COUNT(*), COALESCE(SUM(status='skipped'),0), "
                         "COALESCE(SUM(size),0) FROM rag_blob_cache").fetchone()
    chunks = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(embedding)),0), "
                          "COALESCE(SUM(LENGTH(text) + LENGTH(tokens)),0) "
                          "FROM rag_chunk_cache").fetchone()
    packed = conn.execute("SELECT COALESCE(SUM(LENGTH(texts) + LENGTH(terms)),0), "
                          "COALESCE(SUM(LENGTH(vectors)),0) FROM rag_blob_content").fetchone()
    versions = [{"chunker": r[0], "embedder": r[1], "blobs": r[2]} for r in conn.execute(
        "SELECT chunker_version, embedder_id, COUNT(*) FROM rag_blob_cache "
        "GROUP BY 1, 2 ORDER BY 1, 2")]
    mapped = conn.execute("SELECT COUNT(DISTINCT blob_id) FROM rag_session_chunk_map").fetchone()[0]
    return {"blobs": blobs[0], "blobs_skipped": blobs[1], "blob_bytes": blobs[2],
            "chunks": chunks[0], "embedding_bytes": chunks[1] + packed[1],
            "content_bytes": chunks[2] + packed[0], "mapped_blobs": mapped,
            "versions": versions}


def unmapped(conn: sqlite3.Connection) -> list[tuple[int, str, int, str, str]]:
    """``(id, sha, n_chunks, chunker, embedder)`` of every blob no session maps."""
    return [(r[0], r[1], r[2], r[3], r[4]) for r in conn.execute(
        "SELECT b.id, b.blob_sha, b.n_chunks, b.chunker_version, b.embedder_id "
        "FROM rag_blob_cache b WHERE NOT EXISTS "
        "(SELECT 1 FROM rag_session_chunk_map m WHERE m.blob_id = b.id)")]


def delete(conn: sqlite3.Connection, ids: Iterable[int]) -> None:
    """Remove blobs (their chunks go with them), inside the caller's transaction."""
    conn.executemany("DELETE FROM rag_blob_cache WHERE id=?", [(i,) for i in ids])


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM rag_blob_cache").fetchone()[0])


def plain_cursor(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor that gives tuples (``sqlite3.Row`` costs a few ms per thousand rows)."""
    cur = conn.cursor()
    cur.row_factory = None
    return cur


def chunk_rows(conn: sqlite3.Connection, blob_ids: Sequence[int]
               ) -> Iterator[tuple[int, int, int]]:
    """``(id, blob_id, start_line)`` of the chunks of ``blob_ids`` (sorted), in blob and chunk
    order."""
    for part in parts(blob_ids):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            f"SELECT id, blob_id, start_line FROM rag_chunk_cache "
            f"WHERE blob_id IN ({marks}) ORDER BY blob_id, ord", part)


def blob_identities(conn: sqlite3.Connection, blob_ids: Sequence[int]
                    ) -> Iterator[tuple[int, str, str, str]]:
    """``(id, blob_sha, chunker_version, created_at)`` of ``blob_ids``: what tells a blob row
    from a later one that reuses its id."""
    for part in parts(blob_ids):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            f"SELECT id, blob_sha, chunker_version, created_at FROM rag_blob_cache "
            f"WHERE id IN ({marks})", part)


def chunk_details(conn: sqlite3.Connection, chunk_ids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """``(id, blob_id, ord, start_line, end_line, section, symbol, kind)`` of ``chunk_ids``."""
    for part in parts(chunk_ids):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            "SELECT id, blob_id, ord, start_line, end_line, section, symbol, kind "
            f"FROM rag_chunk_cache WHERE id IN ({marks})", part)


def definition_chunks(conn: sqlite3.Connection, chunk_ids: Sequence[int], tail: str
                      ) -> Iterator[tuple[int, str]]:
    """``(id, symbol)`` of the function, class and method chunks of ``chunk_ids`` whose symbol
    ends with ``tail`` in any case (the caller checks where its last part starts)."""
    pattern = "%" + tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    for part in parts(chunk_ids):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            f"SELECT id, symbol FROM rag_chunk_cache WHERE id IN ({marks}) "
            "AND kind IN ('function', 'class', 'method') AND symbol LIKE ? ESCAPE '\\'",
            [*part, pattern])


def any_class_chunk(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the cache holds the chunk of a class called ``name`` (of any blob)."""
    return conn.execute("SELECT 1 FROM rag_chunk_cache WHERE symbol = ? AND kind = 'class' "
                        "LIMIT 1", (name,)).fetchone() is not None


def chunk_count(conn: sqlite3.Connection, blob_ids: Sequence[int]) -> int:
    """The chunks of ``blob_ids``."""
    total = 0
    for part in parts(blob_ids):
        marks = ",".join("?" * len(part))
        total += int(conn.execute(f"SELECT COUNT(*) FROM rag_chunk_cache WHERE blob_id IN ({marks})",
                                  part).fetchone()[0])
    return total


def chunks_per_blob(conn: sqlite3.Connection, blob_ids: Sequence[int]) -> dict[int, int]:
    """``n_chunks`` of each blob of ``blob_ids``."""
    out: dict[int, int] = {}
    for part in parts(blob_ids):
        marks = ",".join("?" * len(part))
        out.update((r[0], r[1]) for r in plain_cursor(conn).execute(
            f"SELECT id, n_chunks FROM rag_blob_cache WHERE id IN ({marks})", part))
    return out


def chunk_lines(conn: sqlite3.Connection, blob_ids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """``(blob_id, start_line, end_line, kind, symbol, section)`` of every chunk of
    ``blob_ids``, in blob and chunk order."""
    for part in parts(blob_ids):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            "SELECT blob_id, start_line, end_line, kind, symbol, section "
            f"FROM rag_chunk_cache WHERE blob_id IN ({marks}) ORDER BY blob_id, ord", part)


_PACKS = ("texts", "terms", "vectors")


def packs(conn: sqlite3.Connection, blob_ids: Sequence[int], columns: Sequence[str],
          part_size: int = _PART) -> Iterator[tuple[Any, ...]]:
    """``(blob_id, format, n_chunks, *columns)`` of the packed blobs of ``blob_ids`` (sorted),
    in blob order; ``columns`` are among ``texts``, ``terms`` and ``vectors``."""
    wanted = ", ".join(f"c.{c}" for c in columns if c in _PACKS)
    assert len(wanted.split(", ")) == len(columns)
    for part in parts(blob_ids, part_size):
        marks = ",".join("?" * len(part))
        yield from plain_cursor(conn).execute(
            f"SELECT c.blob_id, c.format, b.n_chunks, {wanted} FROM rag_blob_content c "
            f"JOIN rag_blob_cache b ON b.id = c.blob_id WHERE c.blob_id IN ({marks}) "
            "ORDER BY c.blob_id", part)


def unpacked(conn: sqlite3.Connection, blob_ids: Sequence[int]) -> list[int]:
    """The blobs of ``blob_ids`` with chunks but no packs (cached by an older version)."""
    out: list[int] = []
    for part in parts(sorted(set(blob_ids))):
        marks = ",".join("?" * len(part))
        out.extend(r[0] for r in conn.execute(
            f"SELECT b.id FROM rag_blob_cache b WHERE b.id IN ({marks}) AND b.n_chunks > 0 "
            "AND NOT EXISTS (SELECT 1 FROM rag_blob_content c WHERE c.blob_id = b.id)", part))
    return out


def legacy_chunks(conn: sqlite3.Connection, blob_ids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """``(blob_id, embedder_id, text, tokens, embedding)`` of every chunk of ``blob_ids`` (one
    batch) as an older version stored it, in blob and chunk order."""
    marks = ",".join("?" * len(blob_ids))
    yield from plain_cursor(conn).execute(
        "SELECT c.blob_id, b.embedder_id, c.text, c.tokens, c.embedding FROM rag_chunk_cache c "
        f"JOIN rag_blob_cache b ON b.id = c.blob_id WHERE c.blob_id IN ({marks}) "
        "ORDER BY c.blob_id, c.ord", list(blob_ids))


def store_packs(conn: sqlite3.Connection, rows: Sequence[tuple[int, int, bytes, bytes, Any]]
                ) -> None:
    """Store ``(blob_id, format, texts, terms, vectors)`` of blobs packed after they were cached,
    and rewrite their chunk rows without what the packs now hold, in one transaction (a
    blob removed meanwhile takes no packs).

    The chunk rows are deleted and written again, under the same ids, rather than
    updated: a row that shrinks in place keeps its page, a deleted one gives its page
    back for the packs and whatever comes next.
    """
    with Transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO rag_blob_content(blob_id, format, texts, terms, vectors) "
            "SELECT id, ?, ?, ?, ? FROM rag_blob_cache WHERE id=?",
            [(f, t, k, v, b) for b, f, t, k, v in rows])
        for part in parts([r[0] for r in rows]):
            marks = ",".join("?" * len(part))
            kept = plain_cursor(conn).execute(
                "SELECT id, blob_id, ord, start_line, end_line, section, symbol, kind "
                f"FROM rag_chunk_cache WHERE blob_id IN ({marks})", part).fetchall()
            conn.execute(f"DELETE FROM rag_chunk_cache WHERE blob_id IN ({marks})", part)
            conn.executemany(
                "INSERT INTO rag_chunk_cache(id, blob_id, ord, start_line, end_line, section, "
                "symbol, kind, text, tokens) VALUES (?,?,?,?,?,?,?,?,'','')", kept)


def without_facts(conn: sqlite3.Connection, blob_ids: Sequence[int], version: int) -> list[int]:
    """The blobs of ``blob_ids`` (one batch) with chunks but no facts of ``version``."""
    marks = ",".join("?" * len(blob_ids))
    return [r[0] for r in conn.execute(
        f"SELECT b.id FROM rag_blob_cache b WHERE b.id IN ({marks}) AND b.n_chunks > 0 AND NOT "
        "EXISTS (SELECT 1 FROM rag_blob_facts f WHERE f.blob_id = b.id AND f.version = ?) "
        "ORDER BY b.id", (*blob_ids, version))]


def write_facts(conn: sqlite3.Connection, rows: Iterable[tuple[int, int, str]]) -> None:
    """Store ``(blob_id, version, facts)`` rows in one transaction; a blob removed meanwhile
    (``cache gc``) takes no facts."""
    with Transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO rag_blob_facts(blob_id, version, facts) "
            "SELECT id, ?, ? FROM rag_blob_cache WHERE id=?",
            [(v, f, b) for b, v, f in rows])


def read_facts(conn: sqlite3.Connection, blob_ids: Sequence[int], version: int
               ) -> Iterator[tuple[int, str]]:
    """``(blob_id, facts)`` of the blobs of ``blob_ids`` (one batch) with facts of ``version``."""
    marks = ",".join("?" * len(blob_ids))
    yield from conn.execute(
        f"SELECT blob_id, facts FROM rag_blob_facts WHERE version=? AND blob_id IN ({marks})",
        (version, *blob_ids))
