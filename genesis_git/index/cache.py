"""The shared blob cache: its key, its statistics and its garbage collection."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from genesis_git.config import DEFAULTS, Config
from genesis_git.db.connect import SEARCH_DIR, store_path, transaction
from genesis_git.embed import embedder_from_config, embedder_id
from genesis_git.index import chunk
from genesis_git.repo import Repo


def chunker_id(config: Config) -> str:
    """The chunker part of the cache key: its version, and its bounds when they are not the
    defaults, so that changing ``index.chunk_max_lines`` or ``chunk_max_chars`` re-chunks."""
    bounds = (config.int("index.chunk_max_lines"), config.int("index.chunk_max_chars"))
    if bounds == (DEFAULTS["index"]["chunk_max_lines"], DEFAULTS["index"]["chunk_max_chars"]):
        return chunk.CHUNKER_VERSION
    return f"{chunk.CHUNKER_VERSION}-{bounds[0]}x{bounds[1]}"


def stats(conn: sqlite3.Connection, repo: Repo) -> dict[str, Any]:
    """Blobs, chunks, embeddings, sessions, saved search bases and the store's size."""
    c = conn
    blobs = c.execute("SELECT COUNT(*), COALESCE(SUM(status='skipped'),0), COALESCE(SUM(size),0) "
                      "FROM rag_blob_cache").fetchone()
    chunks = c.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(embedding)),0) "
                       "FROM rag_chunk_cache").fetchone()
    versions = [{"chunker": r[0], "embedder": r[1], "blobs": r[2]} for r in c.execute(
        "SELECT chunker_version, embedder_id, COUNT(*) FROM rag_blob_cache "
        "GROUP BY 1, 2 ORDER BY 1, 2")]
    sessions = c.execute("SELECT COUNT(*), COALESCE(SUM(status='active'),0) FROM sessions").fetchone()
    mapped = c.execute("SELECT COUNT(DISTINCT blob_id) FROM rag_session_chunk_map").fetchone()[0]
    db = store_path(repo)
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    bases = _search_bases(repo)
    return {
        "store": str(db),
        "store_bytes": size,
        "search_bases": len(bases),
        "search_bytes": sum(p.stat().st_size for p in bases),
        "blobs": blobs[0],
        "blobs_skipped": blobs[1],
        "blob_bytes": blobs[2],
        "chunks": chunks[0],
        "embedding_bytes": chunks[1],
        "mapped_blobs": mapped,
        "sessions": sessions[0],
        "active_sessions": sessions[1],
        "versions": versions,
    }


def _search_bases(repo: Repo) -> list[Path]:
    """The saved search bases (``<store>/search/<session>.idx``)."""
    folder = store_path(repo).parent / SEARCH_DIR
    return sorted(folder.glob("*.idx")) if folder.is_dir() else []


def gc(conn: sqlite3.Connection, repo: Repo, config: Config,
       dry_run: bool = False) -> dict[str, Any]:
    """Remove cached blobs that no session maps and HEAD does not hold (under the current
    chunker and embedder), and the search bases of sessions that are no longer active."""
    head_shas: set[str] = set()
    if repo.head_sha():
        out = repo.git("ls-tree", "-r", "-z", "HEAD")
        for rec in out.split(b"\0"):
            if rec:
                head_shas.add(rec.split(b"\t", 1)[0].split(b" ")[2].decode())
    # a blob HEAD holds is kept for the next session, but only under the key it would look up
    current = (chunker_id(config), embedder_id(embedder_from_config(config)))
    rows = conn.execute(
        "SELECT b.id, b.blob_sha, b.n_chunks, b.chunker_version, b.embedder_id "
        "FROM rag_blob_cache b WHERE NOT EXISTS "
        "(SELECT 1 FROM rag_session_chunk_map m WHERE m.blob_id = b.id)").fetchall()
    doomed = [(r[0], r[2]) for r in rows if r[1] not in head_shas or (r[3], r[4]) != current]
    active = {r[0] for r in conn.execute("SELECT id FROM sessions WHERE status='active'")}
    stale_bases = [p for p in _search_bases(repo) if p.stem not in active]
    if not dry_run:
        if doomed:
            with transaction(conn):
                conn.executemany("DELETE FROM rag_blob_cache WHERE id=?",
                                     [(i,) for i, _ in doomed])
        for p in stale_bases:
            p.unlink(missing_ok=True)
    return {
        "dry_run": dry_run,
        "blobs_removed": len(doomed),
        "chunks_removed": sum(n for _, n in doomed),
        "search_bases_removed": len(stale_bases),
        "blobs_kept": conn.execute("SELECT COUNT(*) FROM rag_blob_cache").fetchone()[0],
    }
