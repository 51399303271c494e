"""The shared blob cache: its key, lookups and writes, reading its packs, its statistics and its
garbage collection.

The key of a blob is ``(blob_sha, chunker_version, embedder_id)``, where the
chunker version also names non-default chunk bounds (:func:`chunker_id`).  A
blob and all its chunks are written in one transaction, so no session ever
maps a half-written blob.  The chunks' texts and terms are read from the
blob's packs (:mod:`~genesis_git.index.packs`) with :func:`read_packs`, which
first packs a blob that an older version cached (:func:`pack_unpacked`).  The
SQL is :mod:`genesis_git.store.blobs`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from genesis_git.config.schema import IndexSettings
from genesis_git.config.settings import Config
from genesis_git.git.repo import Repo
from genesis_git.git.statusindex import copies, drop, gone_copies
from genesis_git.index import chunk, packs
from genesis_git.providers.embedders import embedder_from_config, embedder_id, hashing_dim
from genesis_git.store import blobs
from genesis_git.store import sessions as session_rows
from genesis_git.store.connect import SEARCH_DIR, compact, store_path, transaction
from genesis_git.text.tokens import VOCABULARY


@dataclass
class CachedBlob:
    id: int
    status: str
    skip_reason: str | None
    size: int
    content_type: str | None
    n_chunks: int


def chunker_id(config: Config) -> str:
    """The chunker part of the cache key: its version, and its bounds when they are not the
    defaults, so that changing ``index.chunk_max_lines`` or ``chunk_max_chars`` re-chunks."""
    bounds = (config.settings.index.chunk_max_lines, config.settings.index.chunk_max_chars)
    default = IndexSettings()
    if bounds == (default.chunk_max_lines, default.chunk_max_chars):
        return chunk.CHUNKER_VERSION
    return f"{chunk.CHUNKER_VERSION}-{bounds[0]}x{bounds[1]}"


def lookup_blobs(conn: sqlite3.Connection, shas: Iterable[str], embedder_id: str,
                 chunker: str) -> dict[str, CachedBlob]:
    return {sha: CachedBlob(*row) for sha, row in blobs.lookup(conn, shas, embedder_id,
                                                                chunker).items()}


def store_prepared(conn: sqlite3.Connection, items: Sequence[Any], embedder_id: str,
                   chunker: str, redo: Sequence[str] = ()) -> int:
    """Write prepared blobs (:class:`genesis_git.index.prepare.Prepared`), one transaction for
    the batch; returns chunks written.

    ``redo`` lists SHAs whose "too large" rows are replaced (the size limit was raised).
    """
    with transaction(conn):
        return blobs.write(conn, items, embedder_id, chunker, redo)


PACK_BATCH = 200  # blobs packed in one transaction


def pack_unpacked(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> int:
    """Pack the blobs of ``blob_ids`` that an older version cached with their text, tokens and
    embedding in every chunk row; returns the blobs packed.

    The packs are made from what the rows hold (nothing is chunked again), a
    batch of blobs per transaction, and the rows are emptied.
    """
    todo = blobs.unpacked(conn, list(blob_ids))
    for i in range(0, len(todo), PACK_BATCH):
        VOCABULARY.reset_if_full()
        rows = []
        for bid, group in groupby(blobs.legacy_chunks(conn, todo[i:i + PACK_BATCH]),
                                  key=lambda r: r[0]):
            chunks = list(group)
            ids = [list(map(VOCABULARY.__getitem__, c[3].split())) for c in chunks]
            vectors = None
            if hashing_dim(chunks[0][1]) is None:
                dim = max((len(c[4]) // 4 for c in chunks if c[4]), default=0)
                vectors = packs.encode_vectors([c[4] for c in chunks], dim) if dim else None
            rows.append((bid, packs.FORMAT, packs.encode_texts([c[2] for c in chunks]),
                         packs.encode_terms(ids, VOCABULARY.tokens), vectors))
        blobs.store_packs(conn, rows)
    return len(todo)


def read_packs(conn: sqlite3.Connection, blob_ids: Iterable[int], columns: Sequence[str],
               part_size: int = 500) -> Iterator[tuple[Any, ...]]:
    """``(blob_id, n_chunks, *columns)`` of the packs of ``blob_ids`` with chunks, in blob order
    (``columns`` among ``texts``, ``terms``, ``vectors``); unpacked blobs are packed first."""
    wanted = sorted({int(b) for b in blob_ids})
    pack_unpacked(conn, wanted)
    for row in blobs.packs(conn, wanted, columns, part_size):
        yield (row[0], *row[2:])


def chunk_texts(conn: sqlite3.Connection, blob_ids: Iterable[int]) -> dict[int, list[str]]:
    """The texts of the chunks of ``blob_ids``, in chunk order, by blob."""
    return {row[0]: packs.decode_texts(row[2]) for row in read_packs(conn, blob_ids, ("texts",))}


def stats(conn: sqlite3.Connection, repo: Repo) -> dict[str, Any]:
    """Blobs, chunks, embeddings, sessions, saved search bases (with what class walks kept
    beside them), the copies of the index kept for git status, and the store's size."""
    cache = blobs.counts(conn)
    sessions = session_rows.counts(conn)
    db = store_path(repo)
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    bases = _search_bases(repo)
    kept = _search_bases(repo, "*.classes")
    status = copies(db.parent)
    return {
        "store": str(db),
        "store_bytes": size,
        "search_bases": len(bases),
        "search_bytes": sum(_size(p) for p in bases + kept),
        "status_copies": len(status),
        "status_bytes": sum(_size(p) for p in status),
        "blobs": cache["blobs"],
        "blobs_skipped": cache["blobs_skipped"],
        "blob_bytes": cache["blob_bytes"],
        "chunks": cache["chunks"],
        "embedding_bytes": cache["embedding_bytes"],
        "content_bytes": cache["content_bytes"],
        "mapped_blobs": cache["mapped_blobs"],
        "sessions": sessions[0],
        "active_sessions": sessions[1],
        "versions": cache["versions"],
    }


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # removed between the listing and now
        return 0


def _search_bases(repo: Repo, kind: str = "*.idx") -> list[Path]:
    """The saved search bases (``<store>/search/<session>.idx``), or with ``kind``
    ``*.classes`` the lines a class walk keeps beside them
    (:mod:`~genesis_git.search.classlines`)."""
    folder = store_path(repo).parent / SEARCH_DIR
    return sorted(folder.glob(kind)) if folder.is_dir() else []


def gc(conn: sqlite3.Connection, repo: Repo, config: Config,
       dry_run: bool = False) -> dict[str, Any]:
    """Remove cached blobs that no session maps and HEAD does not hold (under the current
    chunker and embedder), the search bases of sessions that are no longer active (and
    what their class walks kept beside them), and the
    copies of the index that worktrees now gone kept for git status
    (:func:`~genesis_git.git.statusindex.gone_copies`);
    then give the store's free pages back when they are more than a quarter of it."""
    head_shas: set[str] = set()
    if repo.head_sha():
        out = repo.git("ls-tree", "-r", "-z", "HEAD")
        for rec in out.split(b"\0"):
            if rec:
                head_shas.add(rec.split(b"\t", 1)[0].split(b" ")[2].decode())
    # a blob HEAD holds is kept for the next session, but only under the key it would look up
    current = (chunker_id(config), embedder_id(embedder_from_config(config)))
    rows = blobs.unmapped(conn)
    doomed = [(r[0], r[2]) for r in rows if r[1] not in head_shas or (r[3], r[4]) != current]
    active = session_rows.active_ids(conn)
    stale_bases = [p for p in _search_bases(repo) if p.stem not in active]
    gone = gone_copies(repo.common_dir, store_path(repo).parent)
    if not dry_run:
        if doomed:
            with transaction(conn):
                blobs.delete(conn, [i for i, _ in doomed])
        for p in stale_bases + [p for p in _search_bases(repo, "*.classes")
                                if p.stem not in active]:
            p.unlink(missing_ok=True)
        for p in gone:
            drop(p)
    reclaimed = 0 if dry_run else compact(conn)
    return {
        "dry_run": dry_run,
        "blobs_removed": len(doomed),
        "chunks_removed": sum(n for _, n in doomed),
        "search_bases_removed": len(stale_bases),
        "status_copies_removed": len(gone),
        "blobs_kept": blobs.count(conn),
        "bytes_reclaimed": reclaimed,
    }
