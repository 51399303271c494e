"""The mirror's schema in a real PostgreSQL: the seed's DDL, its additions, its constraints."""

from __future__ import annotations

import threading

import pytest

from genesis_git.kernel.errors import MirrorError
from genesis_git.mirror import schema
from genesis_git.mirror.connect import connect
from genesis_git.mirror.conninfo import Target

psycopg = pytest.importorskip("psycopg")


def _migrated(pg_db) -> None:
    with connect(Target(pg_db.url, "--url")):
        pass


def test_migrations_create_the_seed_tables_once(pg_db) -> None:
    with connect(Target(pg_db.url, "--url")) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
        assert {"session_artifacts", "story_records", "story_artifacts", "story_links",
                "genesis_records", "genesis_migrations"} <= tables
        versions = [r[0] for r in conn.execute("SELECT version FROM genesis_migrations")]
        assert versions == [1, 2]
        assert schema.migrate(conn) == []  # current: nothing to do
        indexes = {r[0] for r in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    for name in ("idx_session_artifacts_session", "idx_session_artifacts_project",
                 "idx_session_artifacts_role", "idx_story_records_project",
                 "idx_story_records_status", "idx_story_records_updated_at",
                 "idx_story_artifacts_story_role", "idx_story_artifacts_story_change",
                 "idx_story_artifacts_doc", "idx_story_artifacts_path",
                 "idx_story_links_story_type", "idx_story_links_target_ref",
                 "uq_story_artifacts_record", "uq_story_links_record",
                 "uq_session_artifacts_record"):
        assert name in indexes


def test_the_seed_columns_and_types(pg_db) -> None:
    _migrated(pg_db)
    with pg_db.admin() as conn:
        cols = {(r[0], r[1]): r[2] for r in conn.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema()")}
    assert cols[("story_records", "story_id")] == "text"
    assert cols[("story_records", "created_at")] == "timestamp with time zone"
    assert cols[("story_artifacts", "id")] == "bigint"
    assert cols[("story_artifacts", "project_id")] == "text"
    assert cols[("story_links", "record_id")] == "text"
    assert cols[("genesis_records", "payload")] == "jsonb"
    assert cols[("session_artifacts", "session_id")] == "text"


@pytest.mark.parametrize("sql, constraint", [
    ("INSERT INTO story_records(story_id, project_id, status) VALUES ('S-1', 'p', 'wip')",
     "chk_story_status"),
    ("INSERT INTO story_artifacts(story_id, artifact_role) VALUES ('S-0', 'opinion')",
     "chk_story_artifact_role"),
    ("INSERT INTO story_artifacts(story_id, artifact_role, change_type) "
     "VALUES ('S-0', 'note', 'renamed')", "chk_story_change_type"),
    ("INSERT INTO story_links(story_id, link_type, target_ref) VALUES ('S-0', 'wiki', 'x')",
     "chk_story_link_type"),
    ("INSERT INTO session_artifacts(session_id, project_id, artifact_role) "
     "VALUES ('s', 'p', 'requirement')", "chk_session_artifact_role"),
])
def test_postgresql_itself_refuses_what_the_seed_forbids(pg_db, sql: str, constraint: str) -> None:
    _migrated(pg_db)
    with pg_db.admin() as conn:
        conn.execute("INSERT INTO story_records(story_id, project_id) VALUES ('S-0', 'p')")
        with pytest.raises(psycopg.errors.CheckViolation) as info:
            conn.execute(sql)
    assert info.value.diag.constraint_name == constraint


def test_foreign_keys_hold(pg_db) -> None:
    _migrated(pg_db)
    with pg_db.admin() as conn, pytest.raises(psycopg.errors.ForeignKeyViolation):
        conn.execute("INSERT INTO story_artifacts(story_id, artifact_role) VALUES ('NONE-1', 'note')")


def test_a_database_with_the_seed_tables_already_is_adopted(pg_db) -> None:
    with psycopg.connect(pg_db.url) as conn:
        conn.execute(schema.SEED_002)
        conn.execute("INSERT INTO story_records(story_id, project_id) VALUES ('OLD-1', 'legacy')")
    _migrated(pg_db)
    with pg_db.admin() as conn:
        assert conn.execute("SELECT project_id FROM story_records").fetchall() == [("legacy",)]
        assert conn.execute("SELECT count(*) FROM genesis_migrations").fetchone()[0] == 2


def test_concurrent_first_use_creates_the_schema_once(pg_db) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _migrated(pg_db)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert pg_db.count("genesis_migrations") == 2


def test_a_newer_schema_is_refused(pg_db) -> None:
    _migrated(pg_db)
    with pg_db.admin() as conn:
        conn.execute("INSERT INTO genesis_migrations(version, name) VALUES (99, 'future')")
    with pytest.raises(MirrorError, match="schema version 99, newer than this genesis"):
        _migrated(pg_db)
