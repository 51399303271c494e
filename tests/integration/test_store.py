from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.config.settings import default_config_text, load_config
from genesis_git.kernel.errors import GenesisError, StoreError
from genesis_git.store.connect import connect
from genesis_git.store.migrations import MIGRATIONS, drop_derived, migrate

runner = CliRunner()

EXPECTED_TABLES = {
    "_genesis_migrations", "sessions", "session_artifacts", "story_records", "story_artifacts",
    "story_links", "rag_blob_cache", "rag_chunk_cache", "rag_session_chunk_map", "genesis_kv",
    "rag_blob_facts", "rag_blob_content", "ledger_records",
}
EXPECTED_INDEXES = {
    "idx_sessions_active_worktree", "idx_sessions_worktree",
    "idx_session_artifacts_session", "idx_session_artifacts_project", "idx_session_artifacts_role",
    "idx_story_records_project", "idx_story_records_status", "idx_story_records_updated_at",
    "uq_story_artifacts", "idx_story_artifacts_story_role", "idx_story_artifacts_story_change",
    "idx_story_artifacts_doc", "idx_story_artifacts_path",
    "uq_story_links", "idx_story_links_story_type", "idx_story_links_target_ref",
    "idx_rag_blob_cache_sha", "idx_map_artifact_type", "idx_map_doc", "idx_map_component",
    "idx_map_path", "idx_map_blob", "idx_ledger_records_story", "idx_ledger_records_pending",
}


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def test_blank_database_migrates_to_the_exact_schema(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
    assert tables == EXPECTED_TABLES
    indexes = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='index' AND name NOT LIKE 'sqlite_%'")}
    assert indexes == EXPECTED_INDEXES
    assert _columns(conn, "story_records") == [
        "story_id", "project_id", "title", "status", "baseline_commit_sha", "snapshot_id",
        "created_at", "updated_at", "created_by", "updated_by"]
    assert _columns(conn, "sessions") == [
        "id", "project_id", "name", "worktree", "branch", "head_sha", "source_doc", "status",
        "started_at", "ended_at", "refreshed_at"]
    assert _columns(conn, "rag_session_chunk_map") == [
        "session_id", "path", "blob_sha", "blob_id", "artifact_type", "doc_id", "doc_version",
        "owner", "system_component", "last_modified", "staleness_score", "dirty", "mtime_ns", "size"]
    assert _columns(conn, "rag_blob_content") == ["blob_id", "format", "texts", "terms", "vectors"]
    assert _columns(conn, "ledger_records") == [
        "id", "kind", "story_id", "session_id", "line", "private", "in_ref"]
    assert _columns(conn, "story_artifacts")[-1] == "record_id"
    assert _columns(conn, "session_artifacts")[-2:] == ["private", "record_id"]
    assert [r[0] for r in conn.execute("SELECT name FROM _genesis_migrations ORDER BY id")] == [
        m.__name__ for m in MIGRATIONS]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 16384
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10000
    assert migrate(conn) == []  # idempotent


@pytest.mark.parametrize("sql", [
    "INSERT INTO story_records(story_id, project_id, status) VALUES ('S-1', 'p', 'bogus')",
    "INSERT INTO story_links(story_id, link_type, target_ref) VALUES ('S-1', 'weird', 'x')",
    "INSERT INTO session_artifacts(session_id, project_id, artifact_role) VALUES ('s', 'p', 'x')",
    "INSERT INTO rag_session_chunk_map(session_id, path, blob_sha, artifact_type, doc_id, "
    "doc_version) VALUES ('s', 'a', 'b', 'NOPE', 'd', 'v')",
])
def test_check_constraints_hold(tmp_path: Path, sql: str) -> None:
    conn = connect(tmp_path / "g.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree) VALUES ('s', 'p', '/w')")
    conn.execute("INSERT INTO story_records(story_id, project_id) VALUES ('S-0', 'p')")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(sql)


def test_staleness_must_stay_in_range(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    conn.execute("INSERT INTO sessions(id, project_id, worktree) VALUES ('s', 'p', '/w')")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO rag_session_chunk_map(session_id, path, blob_sha, artifact_type, "
                     "doc_id, doc_version, staleness_score) VALUES ('s','a','b','CODE','d','v',1.5)")


def test_drop_derived_keeps_the_ledger(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    conn.execute("INSERT INTO story_records(story_id, project_id) VALUES ('S-1', 'p')")
    conn.execute("INSERT INTO rag_blob_cache(blob_sha, chunker_version, embedder_id, size, status)"
                 " VALUES ('x', 'c', 'e', 1, 'ready')")
    drop_derived(conn)
    assert conn.execute("SELECT COUNT(*) FROM rag_blob_cache").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM story_records").fetchone()[0] == 1


def test_a_store_from_before_m003_loses_its_fts_index_and_keeps_its_chunks(tmp_path: Path) -> None:
    from genesis_git.store.migrations import m001_ledger, m002_derived

    db = tmp_path / "g.db"
    old = sqlite3.connect(db)
    old.executescript("CREATE TABLE _genesis_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                      "name TEXT NOT NULL UNIQUE, applied_at TEXT)")
    for fn in (m001_ledger, m002_derived):
        fn(old)
        old.execute("INSERT INTO _genesis_migrations(name) VALUES (?)", (fn.__name__,))
    old.execute("INSERT INTO rag_blob_cache(blob_sha, chunker_version, embedder_id, size, status)"
                " VALUES ('x', 'c', 'e', 1, 'ready')")
    old.execute("INSERT INTO rag_chunk_cache(blob_id, ord, start_line, end_line, kind, text, tokens)"
                " VALUES (1, 0, 1, 1, 'module', 'x', 'x')")
    old.commit()
    assert old.execute("SELECT COUNT(*) FROM sqlite_master WHERE name='rag_chunk_fts'").fetchone()[0]
    old.close()
    conn = connect(db)
    assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'rag_chunk_fts%' "
                        "OR name='rag_chunk_cache_ad'").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM rag_chunk_cache").fetchone()[0] == 1
    conn.execute("DELETE FROM rag_blob_cache")  # the chunk goes with it, and no trigger fails
    assert conn.execute("SELECT COUNT(*) FROM rag_chunk_cache").fetchone()[0] == 0


def test_store_from_a_newer_genesis_is_refused(tmp_path: Path) -> None:
    conn = connect(tmp_path / "g.db")
    conn.execute("INSERT INTO _genesis_migrations(name) VALUES ('m999_future')")
    conn.close()
    with pytest.raises(StoreError, match="newer genesis"):
        connect(tmp_path / "g.db")


def test_corrupt_store_is_one_clear_line(repo: Path, genesis_env: Path) -> None:
    (genesis_env / "genesis.db").write_bytes(b"this is not sqlite" * 100)
    res = runner.invoke(app, ["session", "start"])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"genesis: error: the genesis store at {genesis_env / 'genesis.db'} "
                               "is corrupt")
    doctor = runner.invoke(app, ["doctor"])
    assert doctor.exit_code == 1
    assert "[FAIL] store:" in doctor.output
    assert "move" in doctor.output and "genesis story rebuild" in doctor.output


def test_newer_store_via_cli(repo: Path, genesis_env: Path) -> None:
    conn = connect(genesis_env / "genesis.db")
    conn.execute("INSERT INTO _genesis_migrations(name) VALUES ('m999_future')")
    conn.close()
    res = runner.invoke(app, ["session", "start"])
    assert res.exit_code == 1
    assert res.output.strip() == ("genesis: error: the genesis store was written by a newer "
                                  "genesis (it has migration m999_future) "
                                  "(upgrade genesis (pip install -U genesis-git))")
    doctor = runner.invoke(app, ["doctor", "--json"])
    assert doctor.exit_code == 1
    assert '"name": "migrations"' in doctor.output


def test_doctor_on_a_healthy_repository(repo: Path) -> None:
    assert runner.invoke(app, ["init"]).exit_code == 0
    res = runner.invoke(app, ["doctor"])
    assert res.exit_code == 0, res.output
    assert "[ok  ] store:" in res.output
    assert f"[ok  ] migrations: {len(MIGRATIONS)} applied, none pending" in res.output
    assert res.output.strip().endswith("all checks passed")


def test_doctor_without_store_warns_and_passes(repo: Path) -> None:
    res = runner.invoke(app, ["doctor"])
    assert "[warn] store: no store at" in res.output
    assert "fix: run `genesis init`" in res.output


def test_doctor_reports_a_broken_config(repo: Path) -> None:
    (repo / ".genesis.toml").write_text("[index]\nmax_file_bytes = 'big'\n")
    res = runner.invoke(app, ["doctor"])
    assert res.exit_code == 1
    assert "[FAIL] config:" in res.output and "must be a number" in res.output


# -- config -------------------------------------------------------------------

def test_config_precedence(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.genesis.search]\nk = 7\nrrf_k = 10\n[tool.genesis.story]\nrequire_story = true\n")
    (tmp_path / ".genesis.toml").write_text("[search]\nk = 3\n")
    cfg = load_config(tmp_path, env={"GENESIS_SEARCH_RRF_K": "99"})
    assert cfg.int("search.k") == 3
    assert cfg.int("search.rrf_k") == 99
    assert cfg.bool("story.require_story") is True
    assert cfg.sources == [str(tmp_path / "pyproject.toml"), str(tmp_path / ".genesis.toml"),
                           "env:GENESIS_SEARCH_RRF_K"]


@pytest.mark.parametrize("text, message", [
    ("[nope]\nx = 1\n", "unknown config section [nope]"),
    ("[index]\nbogus = 1\n", "unknown config key index.bogus"),
    ("[index]\nexclude = 'x'\n", "index.exclude must be a list"),
    ("[story]\nrequire_story = 1\n", "story.require_story must be true or false"),
    ("[index\n", "invalid TOML"),
])
def test_config_errors_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".genesis.toml").write_text(text)
    with pytest.raises(GenesisError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(tmp_path)


@pytest.mark.parametrize("var, value, message", [
    ("GENESIS_SEARCH_K", "ten", "is not an integer"),
    ("GENESIS_STORY_REQUIRE_STORY", "maybe", "is not a boolean"),
    ("GENESIS_STALENESS_HALF_LIFE_DAYS", "x", "is not a number"),
])
def test_bad_env_override(tmp_path: Path, var: str, value: str, message: str) -> None:
    with pytest.raises(GenesisError, match=message):
        load_config(tmp_path, env={var: value})


def test_env_list_and_string_overrides(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, env={"GENESIS_INDEX_EXCLUDE": "a/**, b/*.md",
                                     "GENESIS_IMPACT_ENGINE": "cmd:cat"})
    assert cfg.list("index.exclude") == ["a/**", "b/*.md"]
    assert cfg.str("impact.engine") == "cmd:cat"


def test_default_config_text_round_trips(tmp_path: Path) -> None:
    text = default_config_text()
    setting = re.compile(r"^# (\[\w+\]|\w+ = .*)$")
    uncommented = "\n".join(line[2:] if setting.match(line) else line for line in text.splitlines())
    (tmp_path / ".genesis.toml").write_text(uncommented)
    cfg = load_config(tmp_path)
    assert cfg.int("index.max_file_bytes") == 1024 * 1024
    assert cfg.str("story.pattern") == r"[A-Z][A-Z0-9]+-\d+"


def test_doctor_lists_worktrees_and_flags_prunable_ones(repo: Path, tmp_path: Path) -> None:
    import shutil

    from helpers import git

    git(repo, "worktree", "add", "-q", str(tmp_path / "wt2"), "-b", "side")
    res = runner.invoke(app, ["doctor"])
    assert "[ok  ] worktrees: 2 sharing this store" in res.output
    shutil.rmtree(tmp_path / "wt2")
    res = runner.invoke(app, ["doctor"])
    assert "[warn] worktrees: 2 sharing this store; 1 prunable" in res.output
    assert "fix: run `git worktree prune`" in res.output
