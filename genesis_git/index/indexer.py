"""Delta-only indexing: a cache hit is only mapped, a miss is read, chunked, classified and embedded.

The cache key of a blob is ``(blob_sha, chunker_version, embedder_id)``, where the
chunker version also names non-default chunk bounds (:func:`chunker_id`).  A
miss is written in one transaction with all its chunks, so no session ever
maps a half-written blob; a process killed half-way leaves only whole blobs,
and the next run picks up where it stopped.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from genesis_git.config import Config
from genesis_git.db.connect import store_file, transaction
from genesis_git.embed import HashingEmbedder, embedder_from_config
from genesis_git.index.cache import chunker_id
from genesis_git.index.chunk import Chunk, chunk_text, language_of
from genesis_git.index.classify import (
    CODEOWNERS_PATHS,
    CodeOwners,
    artifact_type,
    component,
    content_hint,
    staleness,
)
from genesis_git.index.scan import FileEntry, PrevState, Snapshot, scan
from genesis_git.repo import RawSnapshot, Repo, hash_blob, run_git
from genesis_git.text import VOCABULARY, index_terms

Progress = Callable[[int, int], None]
BATCH = 64
LFS_PREFIX = b"version https://git-lfs.github.com/spec/v1"


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


def embedder_for(config: Config) -> Any:
    from genesis_git import embed as embeddings

    getter = getattr(embeddings, "get_embedder", None)
    if getter is not None:
        return getter(config)
    return embeddings.HashingEmbedder(config.int("embed.dim"))  # pragma: no cover


def decode(data: bytes) -> str:
    """UTF-8 (BOM stripped); then UTF-16 with a BOM; then GB18030; then Latin-1, which never fails."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def content_skip(data: bytes) -> str | None:
    if data.startswith(LFS_PREFIX):
        return "lfs pointer"
    if b"\0" in data[:8000] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary"
    return None


# -- cache ------------------------------------------------------------------

@dataclass
class CachedBlob:
    id: int
    status: str
    skip_reason: str | None
    size: int
    content_type: str | None
    n_chunks: int


def lookup_blobs(conn: sqlite3.Connection, shas: Iterable[str], embedder_id: str,
                 chunker: str) -> dict[str, CachedBlob]:
    found: dict[str, CachedBlob] = {}
    shas = list(shas)
    for i in range(0, len(shas), 500):
        part = shas[i:i + 500]
        marks = ",".join("?" * len(part))
        for row in conn.execute(
                f"SELECT id, blob_sha, status, skip_reason, size, content_type, n_chunks "
                f"FROM rag_blob_cache WHERE chunker_version=? AND embedder_id=? "
                f"AND blob_sha IN ({marks})", (chunker, embedder_id, *part)):
            found[row[1]] = CachedBlob(row[0], row[2], row[3], row[4], row[5], row[6])
    return found


@dataclass
class Prepared:
    sha: str
    size: int
    status: str
    skip_reason: str | None = None
    language: str | None = None
    content_type: str | None = None
    chunks: list[tuple[Any, ...]] = field(default_factory=list)


def prepare_many(work: list[tuple[str, str, bytes]], config: Config, embedder: Any) -> list[Prepared]:
    """Chunk, classify and embed a batch of ``(path, sha, data)`` (no database access).

    The chunks of the whole batch are embedded in one call.
    """
    VOCABULARY.reset_if_full()
    max_lines, max_chars = config.int("index.chunk_max_lines"), config.int("index.chunk_max_chars")
    out: list[Prepared] = []
    pending: list[tuple[Prepared, list[Chunk], list[str]]] = []
    id_lists: list[list[int]] = []
    for path, sha, data in work:
        reason = content_skip(data)
        if reason:
            out.append(Prepared(sha, len(data), "skipped", reason))
            continue
        text = decode(data)
        chunks = chunk_text(path, text, max_lines, max_chars)
        joined: list[str] = []
        for c in chunks:
            tokens, ids = index_terms(c.text)
            joined.append(tokens)
            id_lists.append(ids)
        prepared = Prepared(sha, len(data), "ready", None, language_of(path), content_hint(path, text))
        out.append(prepared)
        pending.append((prepared, chunks, joined))
    vectors = iter(_embed(embedder, [c.text for _, chunks, _ in pending for c in chunks], id_lists))
    for prepared, chunks, joined in pending:
        prepared.chunks = [(i, c.start_line, c.end_line, c.section, c.symbol, c.kind, c.text, toks,
                            next(vectors)) for i, (c, toks) in enumerate(zip(chunks, joined, strict=True))]
    return out


def _embed(embedder: Any, texts: list[str], id_lists: list[list[int]]) -> list[bytes]:
    if not texts:
        return []
    if hasattr(embedder, "embed_token_ids_bytes"):
        return list(embedder.embed_token_ids_bytes(id_lists))
    import numpy as np

    return [np.asarray(v, dtype="<f4").tobytes() for v in embedder.embed(texts)]


def store_prepared(conn: sqlite3.Connection, items: list[Prepared], embedder_id: str,
                   chunker: str, redo: Sequence[str] = ()) -> int:
    """Write prepared blobs, one transaction for the batch; returns chunks written.

    ``redo`` lists SHAs whose "too large" rows are replaced (the size limit was raised).
    """
    written = 0
    with transaction(conn):
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
                "kind, text, tokens, embedding) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(blob_id, *row) for row in p.chunks])
            written += len(p.chunks)
    return written


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
    max_bytes = config.int("index.max_file_bytes")
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
    pool = _pool(conn, config, embedder) if len(misses) >= POOL_MIN_MISSES else None
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
            if progress:
                progress(done, len(misses))

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
                in_flight.append((len(part), pool.submit(_index_in_worker, work, prepared, redo)))
            else:
                prepared.extend(prepare_many(work, config, embedder))
                in_flight.append((len(part), store_prepared(conn, prepared, embedder_id, chunker,
                                                            redo)))
            drain(POOL_WINDOW if pool is not None else 0)
        drain(0)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return lookup_blobs(conn, by_sha, embedder_id, chunker)


def _pause_for_tests() -> None:
    """``GENESIS_TEST_PAUSE_AFTER_BATCH=FILE``, for tests only: once the first batch is
    committed, create FILE and wait, so that a test can kill the indexer mid-way."""
    marker = os.environ.get(PAUSE_VAR)
    if marker:  # pragma: no cover - the process is killed while it waits
        Path(marker).touch()
        time.sleep(120)


PAUSE_VAR = "GENESIS_TEST_PAUSE_AFTER_BATCH"
POOL_MIN_MISSES = 256
POOL_WINDOW = 4
_WORKER: dict[str, Any] = {}


def _pool(conn: sqlite3.Connection, config: Config, embedder: Any) -> Any:
    """Worker processes for a large cold index; only for the offline hashing embedder.

    Each worker prepares a batch and writes it to the store itself, in one
    transaction, so that nothing large travels back to this process.
    """
    workers = min(os.cpu_count() or 1, 4)
    if workers < 2 or type(embedder) is not HashingEmbedder:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                               initargs=(config, embedder.dim, store_file(conn)))


def _init_worker(config: Config, dim: int, db_path: str) -> None:  # pragma: no cover - a child
    import threading

    from genesis_git.db.connect import connect
    # A worker blocks on a queue whose other end its siblings also hold, so it would
    # outlive a parent that was killed; it leaves as soon as it is orphaned instead (an
    # unfinished batch is an uncommitted transaction, which SQLite rolls back).
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="genesis-orphan-watch", daemon=True).start()
    _WORKER["config"] = config
    _WORKER["embedder"] = HashingEmbedder(dim)
    _WORKER["conn"] = connect(Path(db_path))


def _index_in_worker(work: list[tuple[str, str, bytes]], prepared: list[Prepared],
                     redo: list[str]) -> int:  # pragma: no cover - runs in a child
    embedder = _WORKER["embedder"]
    prepared = prepared + prepare_many(work, _WORKER["config"], embedder)
    return store_prepared(_WORKER["conn"], prepared, embedder.id, chunker_id(_WORKER["config"]),
                          redo)


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


# -- per-path metadata ------------------------------------------------------

def last_modified_times(conn: sqlite3.Connection, repo: Repo, head: str | None,
                        wanted: set[str]) -> dict[str, int]:
    """Commit time of the last change of each path, from one ``git log`` pass cached by HEAD."""
    if head is None or not wanted:
        return {}
    row = conn.execute("SELECT value FROM genesis_kv WHERE key='lastmod'").fetchone()
    cached: dict[str, Any] = json.loads(row[0]) if row else {}
    times: dict[str, int] = {}
    if cached.get("head") == head:
        return dict(cached.get("times", {}))
    base = cached.get("head")
    rev = head
    if base and run_git(["merge-base", "--is-ancestor", base, head], repo.root,
                        check=False).returncode == 0:
        times = dict(cached.get("times", {}))
        rev = f"{base}..{head}"
    fresh = _log_times(repo, rev, wanted if rev == head else None)
    for path, ts in fresh.items():
        times[path] = max(ts, times.get(path, 0)) if rev != head else ts
    missing = wanted - times.keys()
    if missing and rev != head:
        times.update(_log_times(repo, head, missing))
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO genesis_kv(key, value) VALUES ('lastmod', ?)",
                     (json.dumps({"head": head, "times": times}),))
    return times


def _log_times(repo: Repo, rev: str, stop_when: set[str] | None) -> dict[str, int]:
    proc = subprocess.Popen(["git", "log", "--format=%x01%ct", "--name-only", "-z", "--no-renames",
                             rev, "--"], cwd=repo.root, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    times: dict[str, int] = {}
    ts = 0
    buf = b""
    remaining = set(stop_when) if stop_when is not None else None
    try:
        while True:
            block = proc.stdout.read(1 << 16)
            if not block:
                break
            buf += block
            parts = buf.split(b"\0")
            buf = parts.pop()
            for tok in parts:
                if tok.startswith(b"\x01"):
                    ts = int(tok[1:] or 0)
                    continue
                path = tok.lstrip(b"\n").decode("utf-8", "surrogateescape")
                if path and path not in times:
                    times[path] = ts
                    if remaining is not None:
                        remaining.discard(path)
            if remaining is not None and not remaining:
                break
    finally:
        proc.stdout.close()
        proc.kill() if proc.poll() is None else None
        proc.wait()
    return times


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def doc_id_for(path: str) -> str:
    import hashlib

    return "doc-" + hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:12]


class Metadata:
    """Computes the per-path metadata of seed 002 §1.1 for one scan."""

    def __init__(self, conn: sqlite3.Connection, repo: Repo, config: Config, snap: Snapshot,
                 head: str | None):
        self.config = config
        self.rules = {str(k): str(v) for k, v in config.table("classify.rules").items()}
        self.components = {str(k): str(v) for k, v in config.table("classify.components").items()}
        self.half_life = config.float("staleness.half_life_days")
        owners_text = ""
        for rel in CODEOWNERS_PATHS:
            p = repo.root / rel
            if p.is_file():
                owners_text = p.read_text(encoding="utf-8", errors="replace")
                break
        self.owners = CodeOwners(owners_text)
        import hashlib

        # what the path-only columns depend on, to reuse them for unchanged files
        self.fingerprint = hashlib.sha1(json.dumps(
            [chunker_id(config), sorted(self.rules.items()), sorted(self.components.items()),
             owners_text]).encode()).hexdigest()
        self.now = time.time()
        clean = {p for p, e in snap.entries.items() if not e.dirty}
        self.times = last_modified_times(conn, repo, head, clean)
        self.root = repo.root

    def row(self, entry: FileEntry, blob: CachedBlob | None,
            same: sqlite3.Row | None = None) -> dict[str, Any]:
        """The map row of ``entry``; ``same`` is its previous row when only the times may differ."""
        hint = blob.content_type if blob is not None else None
        ts: float | None
        if entry.dirty:
            if entry.mtime_ns is None:
                try:
                    st = os.stat(self.root / entry.path)
                    entry.mtime_ns, entry.size = st.st_mtime_ns, st.st_size
                except OSError:
                    pass
            ts = entry.mtime_ns / 1e9 if entry.mtime_ns else self.now
        else:
            t = self.times.get(entry.path)
            ts = float(t) if t else None
        age = (self.now - ts) / 86400 if ts else 0.0
        return {
            "path": entry.path,
            "blob_sha": entry.sha,
            "blob_id": blob.id if blob is not None else None,
            "artifact_type": same["artifact_type"] if same else artifact_type(entry.path, hint,
                                                                              self.rules),
            "doc_id": same["doc_id"] if same else doc_id_for(entry.path),
            "doc_version": entry.sha,
            "owner": same["owner"] if same else self.owners.owner(entry.path),
            "system_component": same["system_component"] if same else component(
                entry.path, self.components),
            "last_modified": _iso(ts) if ts else None,
            "staleness_score": round(staleness(age, self.half_life), 6),
            "dirty": 1 if entry.dirty else 0,
            "mtime_ns": entry.mtime_ns,
            "size": entry.size,
        }


MAP_COLUMNS = ("path", "blob_sha", "blob_id", "artifact_type", "doc_id", "doc_version", "owner",
               "system_component", "last_modified", "staleness_score", "dirty", "mtime_ns", "size")


def previous_state(conn: sqlite3.Connection, session_id: str) -> dict[str, sqlite3.Row]:
    """The session's map rows by path (``sqlite3.Row``: read by column name, built in C)."""
    cur = conn.execute(f"SELECT {', '.join(MAP_COLUMNS)} FROM rag_session_chunk_map "
                       "WHERE session_id=?", (session_id,))
    cur.row_factory = sqlite3.Row
    return {r[0]: r for r in cur}


def index_excludes(config: Config) -> list[str]:
    """``index.exclude`` plus the design library, whose files are searched by ``genesis design``."""
    library = config.str("design.library_dir").strip("/")
    return [*config.list("index.exclude"), f"{library}/**"] if library else config.list(
        "index.exclude")


def index_session(conn: sqlite3.Connection, repo: Repo, config: Config, session_id: str,
                  progress: Progress | None = None, embedder: Any = None) -> IndexReport:
    """Bring the session's map in line with the working tree, doing only the delta."""
    t0 = time.perf_counter()
    report = IndexReport(session=session_id)
    embedder = embedder if embedder is not None else embedder_from_config(config)
    raw = repo.snapshot()
    state_key = _state_key(repo, raw, config, embedder.id)
    known = _known_state(conn, session_id)
    if known is not None and known.get("key") == state_key:
        # the same git output, the same dirty files by stat, the same settings: nothing to do
        for name in ("files", "hits", "excluded"):
            setattr(report, name, int(known.get(name, 0)))
        report.skipped = {str(k): list(v) for k, v in known.get("skipped", {}).items()}
        report.seconds = time.perf_counter() - t0
        return report
    prev = previous_state(conn, session_id)
    prev_stat = {p: PrevState(r["blob_sha"], r["mtime_ns"], r["size"]) for p, r in prev.items()
                 if r["dirty"]}
    snap = scan(repo, config.list("index.include"), index_excludes(config), prev_stat, raw)
    report.excluded = snap.excluded
    entries = list(snap.entries.values())
    report.files = len(entries)
    head = snap.head
    head_row = conn.execute("SELECT head_sha FROM sessions WHERE id=?", (session_id,)).fetchone()
    same_head = head_row is not None and head_row[0] == head
    unchanged = (same_head and len(prev) == len(entries)
                 and all(p in prev and prev[p]["blob_sha"] == e.sha
                         and (prev[p]["blob_id"] is not None or e.skip is not None)
                         for p, e in snap.entries.items()))
    if unchanged:
        # a new embedder or chunker, or a raised size limit, makes mapped blobs stale
        unchanged = conn.execute(
            "SELECT 1 FROM rag_session_chunk_map m JOIN rag_blob_cache b ON b.id = m.blob_id "
            "WHERE m.session_id=? AND (b.embedder_id<>? OR b.chunker_version<>? OR "
            "(b.skip_reason='too large' AND b.size <= ?)) LIMIT 1",
            (session_id, embedder.id, chunker_id(config),
             config.int("index.max_file_bytes"))).fetchone() is None
    blobs: dict[str, CachedBlob] = {}
    if unchanged:
        report.hits = len({e.sha for e in entries if e.skip is None})
        _collect_skips(conn, report, snap, prev)
        with transaction(conn):
            _remember_state(conn, session_id, state_key, report)
        report.seconds = time.perf_counter() - t0
        return report
    blobs = index_entries(conn, repo, config, entries, embedder, report, progress)
    meta = Metadata(conn, repo, config, snap, head)
    fingerprint_key = f"meta:{session_id}"
    seen = conn.execute("SELECT value FROM genesis_kv WHERE key=?", (fingerprint_key,)).fetchone()
    reuse = seen is not None and seen[0] == meta.fingerprint
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
        if removed:
            conn.executemany("DELETE FROM rag_session_chunk_map WHERE session_id=? AND path=?",
                             [(session_id, p) for p in removed])
        if upserts:
            conn.executemany(
                f"INSERT OR REPLACE INTO rag_session_chunk_map(session_id, {', '.join(MAP_COLUMNS)}) "
                f"VALUES (?, {', '.join('?' * len(MAP_COLUMNS))})",
                [(session_id, *[r[k] for k in MAP_COLUMNS]) for r in upserts])
        conn.execute("INSERT OR REPLACE INTO genesis_kv(key, value) VALUES (?, ?)",
                     (fingerprint_key, meta.fingerprint))
        _collect_skips(conn, report, snap, None)
        _remember_state(conn, session_id, state_key, report)
        conn.execute("UPDATE sessions SET head_sha=?, branch=?, refreshed_at="
                     "strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id=?",
                     (head, repo.branch(), session_id))
    report.seconds = time.perf_counter() - t0
    return report


def _state_key(repo: Repo, raw: RawSnapshot, config: Config, embedder_id: str) -> str:
    """A digest of everything a refresh reads: git's output, the stat of every file git
    reports changed, HEAD, the chunker, the embedder and the whole configuration."""
    import hashlib

    h = hashlib.sha1()
    settings = json.dumps([raw.head, chunker_id(config), embedder_id, config.as_dict()],
                          sort_keys=True, default=str)
    for part in (settings.encode(), raw.stage, raw.status):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    for st in raw.status_entries():
        try:
            s = os.stat(repo.root / st.path)
            h.update(f"{st.path}\0{s.st_mtime_ns}\0{s.st_size}\0{s.st_ino}\0".encode(
                "utf-8", "surrogateescape"))
        except OSError:
            h.update(f"{st.path}\0-\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _known_state(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT value FROM genesis_kv WHERE key=?", (f"state:{session_id}",)
                       ).fetchone()
    try:
        value = json.loads(row[0]) if row else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _remember_state(conn: sqlite3.Connection, session_id: str, key: str,
                    report: IndexReport) -> None:
    """What the next refresh compares with; written with the map it describes."""
    value = {"key": key, "files": report.files, "hits": report.hits, "excluded": report.excluded,
             "skipped": {k: sorted(v) for k, v in report.skipped.items()}}
    conn.execute("INSERT OR REPLACE INTO genesis_kv(key, value) VALUES (?, ?)",
                 (f"state:{session_id}", json.dumps(value)))


def _collect_skips(conn: sqlite3.Connection, report: IndexReport, snap: Snapshot,
                   prev: dict[str, sqlite3.Row] | None) -> None:
    reasons: dict[str, str] = {}
    for e in snap.entries.values():
        if e.skip is not None:
            reasons[e.path] = e.skip
    rows = conn.execute(
        "SELECT m.path, b.skip_reason FROM rag_session_chunk_map m JOIN rag_blob_cache b "
        "ON b.id = m.blob_id WHERE m.session_id=? AND b.status='skipped'", (report.session,))
    for path, reason in rows:
        if path in snap.entries:
            reasons[path] = reason
    for path, reason in reasons.items():
        report.skipped.setdefault(reason, []).append(path)
