"""Delta-only indexing: a cache hit is only mapped, a miss is read, chunked, classified and embedded.

:func:`index_session` is the story of one scan: ask git what the working tree
holds (:mod:`~genesis_git.index.scan`), stop at once when nothing changed since
the last scan (:mod:`~genesis_git.index.state`), make sure every blob is in the
shared cache (:func:`index_entries`: :mod:`~genesis_git.index.prepare`, in
worker processes for a large cold index, :mod:`~genesis_git.index.pool`, then
:mod:`~genesis_git.index.cache`), compute each path's metadata
(:mod:`~genesis_git.index.metadata`) and write the session's map
(:mod:`genesis_git.store.sessionmap`) in one transaction.  A process killed
half-way leaves only whole blobs, and the next run picks up where it stopped.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.git.repo import RawSnapshot, Repo, hash_blob
from genesis_git.index.cache import CachedBlob, chunker_id, lookup_blobs, store_prepared
from genesis_git.index.scan import FileEntry, PrevState, Snapshot, scan
from genesis_git.index.state import known_state, remember_state, state_key
from genesis_git.kernel.environment import ENV_TEST_PAUSE_AFTER_BATCH
from genesis_git.kernel.progress import finished as work_finished
from genesis_git.kernel.progress import report as report_work
from genesis_git.providers.embedders import embedder_from_config
from genesis_git.store import kv, sessionmap
from genesis_git.store import sessions as session_rows
from genesis_git.store.connect import transaction
from genesis_git.store.sessionmap import MAP_COLUMNS, previous_state

Progress = Callable[[int, int], None]
BATCH = 64


@dataclass
class IndexReport:
    session: str
    files: int = 0
    hits: int = 0
    misses: int = 0
    chunks: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    changed: int = 0
    removed: int = 0
    excluded: int = 0
    seconds: float = 0.0
    started: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "started": self.started,
            "files": self.files,
            "hits": self.hits,
            "misses": self.misses,
            "chunks": self.chunks,
            "changed": self.changed,
            "removed": self.removed,
            "excluded": self.excluded,
            "skipped": {reason: sorted(paths) for reason, paths in sorted(self.skipped.items())},
            "seconds": round(self.seconds, 3),
        }


def _read_content(repo: Repo, entries: list[FileEntry]) -> dict[str, bytes]:
    """Contents of missed blobs: from the working tree when it matches, else from git."""
    out: dict[str, bytes] = {}
    need_git: list[str] = []
    for e in entries:
        if e.content is not None:
            out[e.sha] = e.content
            continue
        try:
            data = (repo.root / e.path).read_bytes()
        except OSError:
            need_git.append(e.sha)
            continue
        if hash_blob(data) == e.sha:
            out[e.sha] = data
        else:
            need_git.append(e.sha)
    out.update(repo.cat_blobs(need_git))
    return out


def index_entries(conn: sqlite3.Connection, repo: Repo, config: Config, entries: list[FileEntry],
                  embedder: Any, report: IndexReport, progress: Progress | None = None
                  ) -> dict[str, CachedBlob]:
    """Make sure every entry's blob is cached; returns the cache rows by SHA."""
    embedder_id = embedder.id
    max_bytes = config.settings.index.max_file_bytes
    from genesis_git.index import pool as workers  # the work of a scan that found changes
    from genesis_git.index.prepare import Prepared, prepare_many

    by_sha: dict[str, FileEntry] = {}
    for e in entries:
        if e.skip is None:
            by_sha.setdefault(e.sha, e)
    chunker = chunker_id(config)
    cached = lookup_blobs(conn, by_sha, embedder_id, chunker)
    misses = [e for sha, e in by_sha.items()
              if sha not in cached or (cached[sha].skip_reason == "too large"
                                       and cached[sha].size <= max_bytes)]
    report.hits += len(by_sha) - len(misses)
    report.misses += len(misses)
    batches = [misses[i:i + BATCH] for i in range(0, len(misses), BATCH)]
    pool = (workers.start(conn, config, embedder) if len(misses) >= workers.POOL_MIN_MISSES
            else None)
    in_flight: list[tuple[int, Any]] = []  # (blobs, chunks written or a worker's future)
    done = 0

    def drain(limit: int) -> None:
        nonlocal done
        while len(in_flight) > limit:
            blobs, written = in_flight.pop(0)
            report.chunks += written if isinstance(written, int) else written.result()
            if done == 0:
                _pause_for_tests()
            done += blobs
            report_work("indexing", done, len(misses))
            if progress:
                progress(done, len(misses))

    if misses:
        report_work("indexing", 0, len(misses))
    try:
        for part in batches:
            prepared: list[Prepared] = []
            work: list[tuple[str, str, bytes]] = []
            small = []
            for e in part:
                size = e.size if e.size is not None else _disk_size(repo.root / e.path)
                if size is not None and size > max_bytes:
                    prepared.append(Prepared(e.sha, size, "skipped", "too large"))
                else:
                    small.append(e)
            contents = _read_content(repo, small)
            for e in small:
                data = contents.get(e.sha)
                if data is None:
                    continue
                if len(data) > max_bytes:
                    prepared.append(Prepared(e.sha, len(data), "skipped", "too large"))
                else:
                    work.append((e.path, e.sha, data))
            redo = [e.sha for e in part if e.sha in cached]
            if pool is not None:
                in_flight.append((len(part), pool.submit(workers.index_in_worker, work, prepared,
                                                         redo)))
            else:
                prepared.extend(prepare_many(work, config, embedder))
                in_flight.append((len(part), store_prepared(conn, prepared, embedder_id, chunker,
                                                            redo)))
            drain(workers.POOL_WINDOW if pool is not None else 0)
        drain(0)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if misses:
            work_finished()
    return lookup_blobs(conn, by_sha, embedder_id, chunker)


def _pause_for_tests() -> None:
    """``GENESIS_TEST_PAUSE_AFTER_BATCH=FILE``, for tests only: once the first batch is
    committed, create FILE and wait, so that a test can kill the indexer mid-way."""
    marker = ENV_TEST_PAUSE_AFTER_BATCH.raw()
    if marker:  # pragma: no cover - the process is killed while it waits
        Path(marker).touch()
        time.sleep(120)


PAUSE_VAR = ENV_TEST_PAUSE_AFTER_BATCH.name


def _disk_size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def ensure_blobs(conn: sqlite3.Connection, repo: Repo, config: Config,
                 entries: list[tuple[str, str]]) -> int:
    """Cache the given ``(path, blob_sha)`` pairs (used by the post-commit hook); returns misses."""
    embedder = embedder_from_config(config)
    report = IndexReport(session="")
    index_entries(conn, repo, config, [FileEntry(p, s) for p, s in entries], embedder, report)
    return report.misses


def index_excludes(config: Config) -> list[str]:
    """``index.exclude`` plus the design library, whose files are searched by ``genesis design``."""
    library = config.settings.design.library_dir.strip("/")
    excluded = list(config.settings.index.exclude)
    return [*excluded, f"{library}/**"] if library else excluded


def index_session(conn: sqlite3.Connection, repo: Repo, config: Config, session_id: str,
                  progress: Progress | None = None, embedder: Any = None, *,
                  raw: RawSnapshot | None = None) -> IndexReport:
    """Bring the session's map in line with the working tree, doing only the delta
    (``raw``: git's snapshot when the caller has just taken it)."""
    t0 = time.perf_counter()
    report = IndexReport(session=session_id)
    embedder = embedder if embedder is not None else embedder_from_config(config)
    raw = raw if raw is not None else repo.snapshot()
    key = state_key(repo, raw, config, embedder.id)
    known = known_state(conn, session_id)
    if known is not None and known.get("key") == key:
        # the same git output, the same dirty files by stat, the same settings: nothing to do
        for name in ("files", "hits", "excluded"):
            setattr(report, name, int(known.get(name, 0)))
        report.skipped = {str(k): list(v) for k, v in known.get("skipped", {}).items()}
        report.seconds = time.perf_counter() - t0
        return report
    prev = previous_state(conn, session_id)
    prev_stat = {p: PrevState(r["blob_sha"], r["mtime_ns"], r["size"]) for p, r in prev.items()
                 if r["dirty"]}
    snap = scan(repo, list(config.settings.index.include), index_excludes(config), prev_stat, raw)
    report.excluded = snap.excluded
    entries = list(snap.entries.values())
    report.files = len(entries)
    head = snap.head
    head_row = session_rows.head(conn, session_id)
    same_head = head_row is not None and head_row[0] == head
    unchanged = (same_head and len(prev) == len(entries)
                 and all(p in prev and prev[p]["blob_sha"] == e.sha
                         and (prev[p]["blob_id"] is not None or e.skip is not None)
                         for p, e in snap.entries.items()))
    if unchanged:
        # a new embedder or chunker, or a raised size limit, makes mapped blobs stale
        unchanged = not sessionmap.has_stale_blobs(conn, session_id, embedder.id,
                                                   chunker_id(config),
                                                   config.settings.index.max_file_bytes)
    blobs: dict[str, CachedBlob] = {}
    if unchanged:
        report.hits = len({e.sha for e in entries if e.skip is None})
        _collect_skips(conn, report, snap, prev)
        with transaction(conn):
            _remember(conn, report, key)
        report.seconds = time.perf_counter() - t0
        return report
    blobs = index_entries(conn, repo, config, entries, embedder, report, progress)
    from genesis_git.index.metadata import Metadata

    meta = Metadata(conn, repo, config, snap, head)
    reuse = kv.get(conn, "meta", session_id) == meta.fingerprint
    upserts: list[dict[str, Any]] = []
    for e in entries:
        blob = blobs.get(e.sha) if e.skip is None else None
        old = prev.get(e.path)
        same = old if reuse and old is not None and old["blob_sha"] == e.sha else None
        row = meta.row(e, blob, same)
        if old is None or any(old[k] != row[k] for k in MAP_COLUMNS if k not in ("mtime_ns", "size")):
            upserts.append(row)
        elif old["mtime_ns"] != row["mtime_ns"] or old["size"] != row["size"]:
            upserts.append(row)
    removed = [p for p in prev if p not in snap.entries]
    report.changed = len(upserts)
    report.removed = len(removed)
    with transaction(conn):
        sessionmap.write(conn, session_id, removed, upserts)
        kv.put(conn, "meta", session_id, meta.fingerprint)
        _collect_skips(conn, report, snap, None)
        _remember(conn, report, key)
        session_rows.mark_refreshed(conn, session_id, head, repo.branch())
    report.seconds = time.perf_counter() - t0
    return report


def _remember(conn: sqlite3.Connection, report: IndexReport, key: str) -> None:
    remember_state(conn, report.session, key, report.files, report.hits, report.excluded,
                   report.skipped)


def _collect_skips(conn: sqlite3.Connection, report: IndexReport, snap: Snapshot,
                   prev: dict[str, sqlite3.Row] | None) -> None:
    reasons: dict[str, str] = {}
    for e in snap.entries.values():
        if e.skip is not None:
            reasons[e.path] = e.skip
    for path, reason in sessionmap.skipped_paths(conn, report.session):
        if path in snap.entries:
            reasons[path] = reason
    for path, reason in reasons.items():
        report.skipped.setdefault(reason, []).append(path)
