"""Numbered schema migrations, recorded in ``_genesis_migrations``.

Each migration is a function ``mNNN_name(conn)``; it runs in one transaction
and is recorded by name.  They run every time the store is opened.  The
number of migrations is also written to ``PRAGMA user_version``;
:data:`genesis_git.kernel.storepath.SCHEMA_VERSION` names the same number (a test holds
them equal), so that the hooks see that a store is up to date without
importing this module.  A store that records a migration this version does not know was written by a newer
genesis and is refused.

Two layers live here (docs/explanation/sessions-and-cache.md):

* the ledger — ``sessions``, ``session_artifacts``, ``story_records``,
  ``story_artifacts``, ``story_links`` — is the source of truth and is never
  dropped;
* the derived layer — ``rag_blob_cache``, ``rag_chunk_cache``,
  ``rag_blob_content``, ``rag_blob_facts``, ``rag_session_chunk_map`` and
  ``genesis_kv`` — can always be dropped and rebuilt from git and the working
  tree.

``m002_derived`` created an FTS5 index over the chunks' tokens; retrieval
computes BM25 over the session's own postings instead (see
:mod:`genesis_git.search.lexical`), so ``m003_drop_chunk_fts`` removes it:
filling it was a third of the cost of a cold index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from genesis_git.kernel.errors import StoreError
from genesis_git.kernel.storepath import schema_version

ARTIFACT_TYPES = ("REQ", "ARCH", "API", "DB", "UI", "CODE", "OTHER")
SESSION_ROLES = ("analysis", "doc_change", "note", "decision", "risk", "test_model")
STORY_ROLES = ("requirement", "analysis", "doc_change", "test_model", "note", "decision", "risk")
CHANGE_TYPES = ("added", "updated", "removed", "linked")
STORY_STATUSES = ("draft", "in_progress", "review", "done", "archived")
LINK_TYPES = ("story", "adr", "ticket", "pr", "commit", "doc", "external")

NOW = "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"


def _in(values: tuple[str, ...]) -> str:
    return "(" + ",".join(f"'{v}'" for v in values) + ")"


def m001_ledger(conn: sqlite3.Connection) -> None:
    conn.executescript(f"""
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    name TEXT,
    worktree TEXT NOT NULL,
    branch TEXT,
    head_sha TEXT,
    source_doc TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    started_at TEXT NOT NULL DEFAULT {NOW},
    ended_at TEXT,
    refreshed_at TEXT,
    CONSTRAINT chk_session_status CHECK (status IN ('active','ended'))
);
CREATE UNIQUE INDEX idx_sessions_active_worktree ON sessions(worktree) WHERE status = 'active';
CREATE INDEX idx_sessions_worktree ON sessions(worktree, started_at);

CREATE TABLE session_artifacts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    project_id TEXT NOT NULL,
    artifact_role TEXT NOT NULL,
    source_ref TEXT,
    doc_id TEXT,
    doc_version TEXT,
    path TEXT,
    section TEXT,
    chunk_id TEXT,
    change_type TEXT,
    summary TEXT,
    created_at TEXT NOT NULL DEFAULT {NOW},
    created_by TEXT,
    bound_commit TEXT,
    bound_at TEXT,
    CONSTRAINT chk_session_artifact_role CHECK (artifact_role IN {_in(SESSION_ROLES)}),
    CONSTRAINT chk_session_change_type CHECK (change_type IS NULL OR change_type IN {_in(CHANGE_TYPES)})
);
CREATE INDEX idx_session_artifacts_session ON session_artifacts(session_id);
CREATE INDEX idx_session_artifacts_project ON session_artifacts(project_id);
CREATE INDEX idx_session_artifacts_role ON session_artifacts(artifact_role);

CREATE TABLE story_records (
    story_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    title TEXT,
    status TEXT NOT NULL DEFAULT 'draft',
    baseline_commit_sha TEXT,
    snapshot_id TEXT,
    created_at TEXT NOT NULL DEFAULT {NOW},
    updated_at TEXT NOT NULL DEFAULT {NOW},
    created_by TEXT,
    updated_by TEXT,
    CONSTRAINT chk_story_status CHECK (status IN {_in(STORY_STATUSES)})
);
CREATE INDEX idx_story_records_project ON story_records(project_id);
CREATE INDEX idx_story_records_status ON story_records(status);
CREATE INDEX idx_story_records_updated_at ON story_records(updated_at DESC);

CREATE TABLE story_artifacts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    story_id TEXT NOT NULL REFERENCES story_records(story_id) ON DELETE CASCADE,
    artifact_role TEXT NOT NULL,
    doc_id TEXT,
    doc_version TEXT,
    path TEXT,
    section TEXT,
    chunk_id TEXT,
    change_type TEXT,
    summary TEXT,
    source_ref TEXT,
    created_at TEXT NOT NULL DEFAULT {NOW},
    created_by TEXT,
    CONSTRAINT chk_story_artifact_role CHECK (artifact_role IN {_in(STORY_ROLES)}),
    CONSTRAINT chk_story_change_type CHECK (change_type IS NULL OR change_type IN {_in(CHANGE_TYPES)})
);
CREATE UNIQUE INDEX uq_story_artifacts ON story_artifacts(
    story_id, artifact_role, COALESCE(doc_id,''), COALESCE(path,''),
    COALESCE(section,''), COALESCE(change_type,''));
CREATE INDEX idx_story_artifacts_story_role ON story_artifacts(story_id, artifact_role);
CREATE INDEX idx_story_artifacts_story_change ON story_artifacts(story_id, change_type);
CREATE INDEX idx_story_artifacts_doc ON story_artifacts(doc_id, doc_version);
CREATE INDEX idx_story_artifacts_path ON story_artifacts(path);

CREATE TABLE story_links (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    story_id TEXT NOT NULL REFERENCES story_records(story_id) ON DELETE CASCADE,
    link_type TEXT NOT NULL,
    target_ref TEXT NOT NULL,
    description TEXT,
    meta TEXT,
    created_at TEXT NOT NULL DEFAULT {NOW},
    CONSTRAINT chk_story_link_type CHECK (link_type IN {_in(LINK_TYPES)})
);
CREATE UNIQUE INDEX uq_story_links ON story_links(story_id, link_type, target_ref);
CREATE INDEX idx_story_links_story_type ON story_links(story_id, link_type);
CREATE INDEX idx_story_links_target_ref ON story_links(target_ref);
""")


def m002_derived(conn: sqlite3.Connection) -> None:
    conn.executescript(f"""
CREATE TABLE rag_blob_cache (
    id INTEGER PRIMARY KEY,
    blob_sha TEXT NOT NULL,
    chunker_version TEXT NOT NULL,
    embedder_id TEXT NOT NULL,
    size INTEGER NOT NULL,
    status TEXT NOT NULL,
    skip_reason TEXT,
    language TEXT,
    content_type TEXT,
    n_chunks INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT {NOW},
    CONSTRAINT chk_blob_status CHECK (status IN ('ready','skipped')),
    CONSTRAINT chk_blob_content_type CHECK (content_type IS NULL OR content_type IN {_in(ARTIFACT_TYPES)}),
    UNIQUE (blob_sha, chunker_version, embedder_id)
);
CREATE INDEX idx_rag_blob_cache_sha ON rag_blob_cache(blob_sha);

CREATE TABLE rag_chunk_cache (
    id INTEGER PRIMARY KEY,
    blob_id INTEGER NOT NULL REFERENCES rag_blob_cache(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    section TEXT,
    symbol TEXT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    tokens TEXT NOT NULL,
    embedding BLOB,
    UNIQUE (blob_id, ord)
);

CREATE VIRTUAL TABLE rag_chunk_fts USING fts5(
    tokens, content='rag_chunk_cache', content_rowid='id',
    tokenize='unicode61 remove_diacritics 0');
CREATE TRIGGER rag_chunk_cache_ad AFTER DELETE ON rag_chunk_cache BEGIN
    INSERT INTO rag_chunk_fts(rag_chunk_fts, rowid, tokens) VALUES ('delete', old.id, old.tokens);
END;

CREATE TABLE rag_session_chunk_map (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    blob_sha TEXT NOT NULL,
    blob_id INTEGER REFERENCES rag_blob_cache(id) ON DELETE SET NULL,
    artifact_type TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    doc_version TEXT NOT NULL,
    owner TEXT,
    system_component TEXT,
    last_modified TEXT,
    staleness_score REAL NOT NULL DEFAULT 0,
    dirty INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER,
    size INTEGER,
    PRIMARY KEY (session_id, path),
    CONSTRAINT chk_map_artifact_type CHECK (artifact_type IN {_in(ARTIFACT_TYPES)}),
    CONSTRAINT chk_map_staleness CHECK (staleness_score >= 0 AND staleness_score <= 1)
);
CREATE INDEX idx_map_artifact_type ON rag_session_chunk_map(artifact_type);
CREATE INDEX idx_map_doc ON rag_session_chunk_map(doc_id, doc_version);
CREATE INDEX idx_map_component ON rag_session_chunk_map(system_component);
CREATE INDEX idx_map_path ON rag_session_chunk_map(path);
CREATE INDEX idx_map_blob ON rag_session_chunk_map(blob_id);

CREATE TABLE genesis_kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL DEFAULT {NOW}
);
""")


def m003_drop_chunk_fts(conn: sqlite3.Connection) -> None:
    conn.executescript("""
DROP TRIGGER IF EXISTS rag_chunk_cache_ad;
DROP TABLE IF EXISTS rag_chunk_fts;
""")


def m004_blob_facts(conn: sqlite3.Connection) -> None:
    """What impact reads of a blob besides its tokens (tables, methods, imports), keyed like
    its chunks, so that a call loads prepared facts instead of every chunk's text."""
    conn.executescript("""
CREATE TABLE rag_blob_facts (
    blob_id INTEGER PRIMARY KEY REFERENCES rag_blob_cache(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    facts TEXT NOT NULL
);
""")


def m005_ledger_records(conn: sqlite3.Connection) -> None:
    """Every change of the ledger as an immutable record (:mod:`genesis_git.stories.ledger`).

    ``in_ref`` is 1 once the record is in a ledger ref of git (written there by
    ``genesis sync`` or read from there); ``private`` records never leave the
    clone.  The ``record_id`` columns tie a row to the record that made it.
    """
    conn.executescript("""
CREATE TABLE ledger_records (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    story_id TEXT,
    session_id TEXT,
    line TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0,
    in_ref INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_ledger_records_story ON ledger_records(story_id);
CREATE INDEX idx_ledger_records_pending ON ledger_records(in_ref) WHERE in_ref = 0;
ALTER TABLE session_artifacts ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE session_artifacts ADD COLUMN record_id TEXT;
ALTER TABLE story_artifacts ADD COLUMN record_id TEXT;
ALTER TABLE story_links ADD COLUMN record_id TEXT;
""")


def m006_blob_content(conn: sqlite3.Connection) -> None:
    """A blob's chunk texts, terms and (for an embedder whose vectors cannot be derived from
    the terms) vectors, packed and compressed in one row (:mod:`genesis_git.index.packs`)
    instead of three columns of every chunk row: a fifth of the size.

    The chunk rows of a blob cached before keep their ``text``, ``tokens`` and
    ``embedding`` until the blob is first read, when it is packed and they are
    emptied (:func:`genesis_git.index.cache.pack_unpacked`); nothing is chunked again.
    """
    conn.executescript("""
CREATE TABLE rag_blob_content (
    blob_id INTEGER PRIMARY KEY REFERENCES rag_blob_cache(id) ON DELETE CASCADE,
    format INTEGER NOT NULL,
    texts BLOB NOT NULL,
    terms BLOB NOT NULL,
    vectors BLOB
);
""")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [m001_ledger, m002_derived,
                                                          m003_drop_chunk_fts, m004_blob_facts,
                                                          m005_ledger_records, m006_blob_content]

DERIVED_TABLES = ("rag_session_chunk_map", "rag_blob_facts", "rag_blob_content",
                  "rag_chunk_cache", "rag_blob_cache", "genesis_kv")
LEDGER_TABLES = ("sessions", "session_artifacts", "story_records", "story_artifacts", "story_links",
                 "ledger_records")


def applied(conn: sqlite3.Connection) -> list[str]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='_genesis_migrations'").fetchone()
    if not exists:
        return []
    return [r[0] for r in conn.execute("SELECT name FROM _genesis_migrations ORDER BY id")]


def pending(conn: sqlite3.Connection) -> list[str]:
    done = set(applied(conn))
    return [m.__name__ for m in MIGRATIONS if m.__name__ not in done]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every pending migration; return the names applied."""
    known = {m.__name__ for m in MIGRATIONS}
    done = applied(conn)
    unknown = [name for name in done if name not in known]
    if unknown:
        raise StoreError(
            f"the genesis store was written by a newer genesis (it has migration {unknown[-1]})",
            hint="upgrade genesis (pip install -U genesis-git)")
    if len(done) == len(MIGRATIONS):
        if schema_version(conn) != len(MIGRATIONS):  # migrated before the version was kept
            conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        return []
    ran: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("""CREATE TABLE IF NOT EXISTS _genesis_migrations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))""")
        done_now = {r[0] for r in conn.execute("SELECT name FROM _genesis_migrations")}
        for fn in MIGRATIONS:
            if fn.__name__ in done_now:
                continue
            for stmt in _statements(fn):
                conn.execute(stmt)
            conn.execute("INSERT INTO _genesis_migrations(name) VALUES (?)", (fn.__name__,))
            ran.append(fn.__name__)
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return ran


class _Recorder:
    """Collects the statements of an ``executescript`` so they run inside our transaction."""

    def __init__(self) -> None:
        self.script = ""

    def executescript(self, script: str) -> None:
        self.script += script


def _statements(fn: Callable[[sqlite3.Connection], None]) -> list[str]:
    rec = _Recorder()
    fn(rec)  # type: ignore[arg-type]
    out: list[str] = []
    buf = ""
    for line in rec.script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():  # pragma: no cover - a migration always ends its statements
        out.append(buf.strip())
    return out


def drop_derived(conn: sqlite3.Connection) -> None:
    """Empty the derived layer; the ledger is untouched."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in DERIVED_TABLES:
            conn.execute(f"DELETE FROM {table}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
