"""The mirror's schema: the story tables, then what several repositories need.

The tables and both migrations are documented in docs/reference/mirror-schema.md.

Numbered migrations, recorded in ``genesis_migrations`` of the mirror. They
run in one transaction under an advisory lock, so that several clones that
mirror at once into a new database create it once.  A database that records
a migration this genesis does not know was set up by a newer genesis and is
refused rather than written to.

Migration 1 is the seed's DDL as written (``IF NOT EXISTS``, so a database
that already holds the seed's tables is adopted).  Migration 2 adds, and only
adds, what several repositories need:

* ``genesis_records``: every ledger record ever mirrored, keyed by its unique
  id, with the project that mirrored it.  The seed's tables are the fold of
  these records (:func:`genesis_git.stories.ledger.records.fold`, the rule of the git
  ledger), so the database and every clone that holds the same records agree,
  whatever the order in which clones mirrored, and mirroring the same records
  again adds nothing;
* ``record_id`` (unique) on ``session_artifacts``, ``story_artifacts`` and
  ``story_links``: the record each row came from;
* ``project_id`` on ``story_artifacts`` and ``story_links``: which repository
  the row came from (``story_records`` and ``session_artifacts`` have it in the
  seed already; ``story_records.project_id`` is the project that created the
  story first).

Rows without a ``record_id`` were not written by genesis and are left alone.
"""

from __future__ import annotations

from typing import Any

# the values the seed's CHECK constraints allow (a record outside them is not mirrored)
SESSION_ROLES = ("analysis", "doc_change", "note", "decision", "risk", "test_model")
STORY_ROLES = ("requirement", "analysis", "doc_change", "test_model", "note", "decision", "risk")
CHANGE_TYPES = ("added", "updated", "removed", "linked")
STORY_STATUSES = ("draft", "in_progress", "review", "done", "archived")
LINK_TYPES = ("story", "adr", "ticket", "pr", "commit", "doc", "external")

LOCK_KEY = 0x67656E65736973  # pg_advisory_xact_lock key of the migrations ("genesis")

SEED_002 = """
-- A) Session artifacts (temporary layer until a story_id exists)
CREATE TABLE IF NOT EXISTS session_artifacts (
    id BIGSERIAL PRIMARY KEY,
    session_id TEXT NOT NULL,
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
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    created_by TEXT,
    CONSTRAINT chk_session_artifact_role CHECK (artifact_role IN (
        'analysis','doc_change','note','decision','risk','test_model'
    )),
    CONSTRAINT chk_session_change_type CHECK (change_type IS NULL OR change_type IN (
        'added','updated','removed','linked'
    ))
);

CREATE INDEX IF NOT EXISTS idx_session_artifacts_session ON session_artifacts(session_id);
CREATE INDEX IF NOT EXISTS idx_session_artifacts_project ON session_artifacts(project_id);
CREATE INDEX IF NOT EXISTS idx_session_artifacts_role ON session_artifacts(artifact_role);

-- 1) Story records
CREATE TABLE IF NOT EXISTS story_records (
    story_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    title TEXT,
    status TEXT NOT NULL DEFAULT 'draft',
    baseline_commit_sha TEXT,
    snapshot_id TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    created_by TEXT,
    updated_by TEXT,
    CONSTRAINT chk_story_status CHECK (status IN (
        'draft','in_progress','review','done','archived'
    ))
);

CREATE INDEX IF NOT EXISTS idx_story_records_project ON story_records(project_id);
CREATE INDEX IF NOT EXISTS idx_story_records_status ON story_records(status);
CREATE INDEX IF NOT EXISTS idx_story_records_updated_at ON story_records(updated_at DESC);

-- 2) Story artifacts
CREATE TABLE IF NOT EXISTS story_artifacts (
    id BIGSERIAL PRIMARY KEY,
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
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    created_by TEXT,
    CONSTRAINT chk_story_artifact_role CHECK (artifact_role IN (
        'requirement','analysis','doc_change','test_model','note','decision','risk'
    )),
    CONSTRAINT chk_story_change_type CHECK (change_type IS NULL OR change_type IN (
        'added','updated','removed','linked'
    ))
);

CREATE INDEX IF NOT EXISTS idx_story_artifacts_story_role ON story_artifacts(story_id, artifact_role);
CREATE INDEX IF NOT EXISTS idx_story_artifacts_story_change ON story_artifacts(story_id, change_type);
CREATE INDEX IF NOT EXISTS idx_story_artifacts_doc ON story_artifacts(doc_id, doc_version);
CREATE INDEX IF NOT EXISTS idx_story_artifacts_path ON story_artifacts(path);

-- 3) Story links
CREATE TABLE IF NOT EXISTS story_links (
    id BIGSERIAL PRIMARY KEY,
    story_id TEXT NOT NULL REFERENCES story_records(story_id) ON DELETE CASCADE,
    link_type TEXT NOT NULL,
    target_ref TEXT NOT NULL,
    description TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    CONSTRAINT chk_story_link_type CHECK (link_type IN (
        'story','adr','ticket','pr','commit','doc','external'
    ))
);

CREATE INDEX IF NOT EXISTS idx_story_links_story_type ON story_links(story_id, link_type);
CREATE INDEX IF NOT EXISTS idx_story_links_target_ref ON story_links(target_ref);
"""

SEVERAL_REPOSITORIES = """
CREATE TABLE genesis_records (
    record_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    story_id TEXT,
    session_id TEXT,
    author_name TEXT NOT NULL,
    author_email TEXT NOT NULL,
    record_time TEXT NOT NULL,
    payload JSONB NOT NULL,
    mirrored_at TIMESTAMPTZ NOT NULL DEFAULT NOW()
);
CREATE INDEX idx_genesis_records_project ON genesis_records(project_id);
CREATE INDEX idx_genesis_records_story ON genesis_records(story_id);
CREATE INDEX idx_genesis_records_retracted ON genesis_records((payload->>'note_id'))
    WHERE kind = 'note.retracted';

ALTER TABLE session_artifacts ADD COLUMN record_id TEXT;
CREATE UNIQUE INDEX uq_session_artifacts_record ON session_artifacts(record_id);

ALTER TABLE story_artifacts ADD COLUMN project_id TEXT, ADD COLUMN record_id TEXT;
CREATE UNIQUE INDEX uq_story_artifacts_record ON story_artifacts(record_id);
CREATE INDEX idx_story_artifacts_project ON story_artifacts(project_id);

ALTER TABLE story_links ADD COLUMN project_id TEXT, ADD COLUMN record_id TEXT;
CREATE UNIQUE INDEX uq_story_links_record ON story_links(record_id);
CREATE INDEX idx_story_links_project ON story_links(project_id);
"""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "seed_002_story_context", SEED_002),
    (2, "several_repositories", SEVERAL_REPOSITORIES),
)
VERSION = MIGRATIONS[-1][0]

_JOURNAL = """
CREATE TABLE IF NOT EXISTS genesis_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT NOW()
)"""


class NewerSchema(Exception):
    """The mirror was set up by a newer genesis."""


def applied(conn: Any) -> list[int]:
    """Versions recorded in ``genesis_migrations`` (empty when the table does not exist)."""
    row = conn.execute("SELECT to_regclass('genesis_migrations') IS NOT NULL").fetchone()
    if not row[0]:
        return []
    return [r[0] for r in conn.execute("SELECT version FROM genesis_migrations ORDER BY version")]


def migrate(conn: Any) -> list[int]:
    """Bring the mirror's schema up to :data:`VERSION`; the versions applied now.

    ``conn`` is a psycopg connection outside a transaction.  Nothing is locked
    when the schema is already current (the usual case: one query).
    """
    known = {v for v, _, _ in MIGRATIONS}
    done = applied(conn)
    conn.commit()
    if set(done) - known:
        raise NewerSchema(max(set(done) - known))
    if set(done) >= known:
        return []
    new: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        conn.execute(_JOURNAL)
        done = [r[0] for r in conn.execute("SELECT version FROM genesis_migrations")]
        for version, name, sql in MIGRATIONS:
            if version in done:
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO genesis_migrations(version, name) VALUES (%s, %s)",
                         (version, name))
            new.append(version)
    return new
