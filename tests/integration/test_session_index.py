from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.index import chunk as chunk_mod
from genesis_git.index import indexer, pool
from genesis_git.index.session import open_context
from genesis_git.providers.embedders import embedder_from_config
from genesis_git.store.connect import connect

from helpers import cached_chunks, git, make_repo, write

runner = CliRunner()


def start_json(*args: str) -> dict:
    res = runner.invoke(app, ["session", "start", "--json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def map_rows(genesis_env: Path) -> dict[str, dict]:
    conn = connect(genesis_env / "genesis.db")
    conn.row_factory = None
    cols = ["path", "blob_sha", "artifact_type", "owner", "system_component", "last_modified",
            "staleness_score", "dirty"]
    rows = conn.execute(f"SELECT {', '.join(cols)} FROM rag_session_chunk_map m JOIN sessions s "
                        "ON s.id = m.session_id WHERE s.status='active'").fetchall()
    return {r[0]: dict(zip(cols, r, strict=True)) for r in rows}


def test_start_report_has_the_stable_keys(repo: Path) -> None:
    report = start_json()
    assert {"session", "files", "hits", "misses", "chunks", "skipped", "seconds"} <= set(report)
    assert report["files"] == 4
    assert report["misses"] == 4 and report["hits"] == 0
    assert report["chunks"] > 4
    assert report["started"] is True


def test_snapshot_matches_git_hash_object(repo: Path, genesis_env: Path) -> None:
    write(repo, "src/shop/orders.py", "def changed():\n    return 1\n")
    write(repo, "new file ü.md", "# Neu\n\nuntracked\n")
    weird = "line\nbreak.txt"
    write(repo, weird, "a path with a newline\n")
    (repo / "README.md").unlink()
    write(repo, ".gitignore", "ignored.txt\n")
    write(repo, "ignored.txt", "never indexed\n")
    start_json()
    rows = map_rows(genesis_env)
    assert "README.md" not in rows
    assert "ignored.txt" not in rows
    for rel in ("src/shop/orders.py", "new file ü.md", weird, ".gitignore"):
        expected = git(repo, "hash-object", "--", rel).strip()
        assert rows[rel]["blob_sha"] == expected, rel
        assert rows[rel]["dirty"] == 1
    tracked = git(repo, "ls-files", "-s", "db/schema.sql").split()[1]
    assert rows["db/schema.sql"]["blob_sha"] == tracked
    assert rows["db/schema.sql"]["dirty"] == 0


def test_second_session_hits_everything_and_duplicates_are_chunked_once(
        repo: Path, genesis_env: Path) -> None:
    write(repo, "copy/orders_copy.py", (repo / "src/shop/orders.py").read_text())
    first = start_json()
    assert first["files"] == 5 and first["misses"] == 4  # identical content: one blob
    conn = connect(genesis_env / "genesis.db")
    chunks_before = conn.execute("SELECT COUNT(*) FROM rag_chunk_cache").fetchone()[0]
    assert runner.invoke(app, ["session", "end"]).exit_code == 0
    second = start_json()
    assert second["session"] != first["session"]
    assert second["misses"] == 0 and second["hits"] == 4 and second["chunks"] == 0
    assert conn.execute("SELECT COUNT(*) FROM rag_chunk_cache").fetchone()[0] == chunks_before


def test_refresh_maps_only_the_delta(repo: Path) -> None:
    start_json()
    res = runner.invoke(app, ["session", "refresh", "--json"])
    quiet = json.loads(res.output)
    assert quiet["misses"] == 0 and quiet["changed"] == 0 and quiet["removed"] == 0
    write(repo, "db/schema.sql", "CREATE TABLE orders (id INTEGER, discount_code TEXT);\n")
    (repo / "README.md").unlink()
    delta = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert delta["misses"] == 1 and delta["changed"] == 1 and delta["removed"] == 1
    assert delta["files"] == 3


def test_start_resumes_the_active_session_and_new_replaces_it(repo: Path) -> None:
    first = start_json("--name", "orders work")
    again = start_json()
    assert again["session"] == first["session"] and again["started"] is False
    fresh = start_json("--new")
    assert fresh["session"] != first["session"] and fresh["started"] is True
    listing = runner.invoke(app, ["session", "list", "--json"])
    states = {s["id"]: s["status"] for s in json.loads(listing.output)["sessions"]}
    assert states == {first["session"]: "ended", fresh["session"]: "active"}


def test_doc_is_recorded_and_must_exist(repo: Path) -> None:
    bad = runner.invoke(app, ["session", "start", "--doc", "docs/nope.md"])
    assert bad.exit_code == 1
    assert bad.output.strip() == "genesis: error: --doc docs/nope.md: no such file"
    start_json("--doc", "docs/req/orders.md")
    shown = json.loads(runner.invoke(app, ["session", "status", "--json"]).output)
    assert shown["active"]["source_doc"] == "docs/req/orders.md"


def test_status_show_end_and_unknown_ids(repo: Path) -> None:
    none = runner.invoke(app, ["session", "status"])
    assert none.exit_code == 1
    assert "no active session" in none.output
    sid = start_json()["session"]
    status = runner.invoke(app, ["session", "status"])
    assert status.exit_code == 0 and f"session {sid} (active)" in status.output
    assert "types:" in status.output
    shown = runner.invoke(app, ["session", "show", sid])
    assert shown.exit_code == 0 and sid in shown.output
    missing = runner.invoke(app, ["session", "show", "s-nope"])
    assert missing.exit_code == 1
    assert missing.output.startswith("genesis: error: unknown session 's-nope' (known: ")
    assert runner.invoke(app, ["session", "end"]).output.strip() == f"ended {sid}"
    again = runner.invoke(app, ["session", "end", sid])
    assert again.exit_code == 1 and "already ended" in again.output
    assert runner.invoke(app, ["session", "end"]).exit_code == 1
    plain = runner.invoke(app, ["session", "list"])
    assert sid in plain.output and "ended" in plain.output


def test_skipped_files_are_counted_never_crashed_on(tmp_path: Path, monkeypatch) -> None:
    root = make_repo(tmp_path / "r", {"ok.md": "# fine\n"})
    monkeypatch.chdir(root)
    (root / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    (root / "big.txt").write_text("x" * 2048)
    (root / "model.bin.txt").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12345\n")
    os.symlink("/etc/hostname", root / "outside-link")
    os.symlink("ok.md", root / "inside-link")
    sub = make_repo(tmp_path / "sub", {"s.txt": "sub\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    (root / "latin.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    (root / "gbk.md").write_bytes("订单表说明\n".encode("gb18030"))
    monkeypatch.setenv("GENESIS_INDEX_MAX_FILE_BYTES", "1000")
    report = start_json()
    assert report["skipped"] == {
        "binary": ["image.bin"],
        "lfs pointer": ["model.bin.txt"],
        "submodule": ["vendor/sub"],
        "symlink": ["inside-link"],
        "symlink outside repository": ["outside-link"],
        "too large": ["big.txt"],
    }
    ctx = open_context()
    sid = ctx.conn.execute("SELECT id FROM sessions WHERE status='active'").fetchone()[0]
    texts = {r[0]: r[4] for r in cached_chunks(ctx.conn, sid)}
    assert texts["latin.txt"] == "café crème"
    assert texts["gbk.md"] == "订单表说明"
    # raising the limit re-reads the large file only
    monkeypatch.setenv("GENESIS_INDEX_MAX_FILE_BYTES", "100000")
    again = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert "too large" not in again["skipped"]
    assert again["misses"] == 1


def test_include_and_exclude_globs(repo: Path) -> None:
    (repo / ".genesis.toml").write_text('[index]\nexclude = ["docs/**"]\n')
    report = start_json()
    assert report["excluded"] == 1
    assert report["files"] == 4  # README, orders.py, schema.sql, .genesis.toml
    (repo / ".genesis.toml").write_text('[index]\ninclude = ["**/*.py"]\n')
    narrowed = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert narrowed["files"] == 1


def test_metadata_types_owner_component_and_times(repo: Path, genesis_env: Path) -> None:
    write(repo, "CODEOWNERS", "* @team\n/db/ @dba\ndocs/ @analysts\n")
    git(repo, "add", "CODEOWNERS")
    git(repo, "commit", "-q", "-m", "owners", env={**os.environ,
                                                    "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
                                                    "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z"})
    write(repo, "app/templates/order.html", "<p>{{ order.total }}</p>\n")
    (repo / ".genesis.toml").write_text('[classify]\ncomponents = { "db/**" = "storage" }\n')
    start_json()
    rows = map_rows(genesis_env)
    assert rows["db/schema.sql"]["artifact_type"] == "DB"
    assert rows["db/schema.sql"]["owner"] == "@dba"
    assert rows["db/schema.sql"]["system_component"] == "storage"
    assert rows["docs/req/orders.md"]["artifact_type"] == "REQ"
    assert rows["docs/req/orders.md"]["owner"] == "@analysts"
    assert rows["src/shop/orders.py"]["artifact_type"] == "CODE"
    assert rows["src/shop/orders.py"]["system_component"] == "shop"
    assert rows["app/templates/order.html"]["artifact_type"] == "UI"
    assert rows["README.md"]["system_component"] == "(root)"
    assert rows["CODEOWNERS"]["last_modified"] == "2020-01-01T00:00:00Z"
    assert rows["CODEOWNERS"]["staleness_score"] > 0.9
    assert rows["app/templates/order.html"]["staleness_score"] < 0.01
    assert rows["README.md"]["last_modified"] is not None


def test_a_repository_without_commits_is_indexed(tmp_path: Path, monkeypatch) -> None:
    root = make_repo(tmp_path / "fresh", {"notes.md": "# 订单\n\n需求\n"}, commit=False)
    monkeypatch.chdir(root)
    report = start_json()
    assert report["files"] == 1 and report["chunks"] >= 1


def test_missing_git_is_exit_3(repo: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(repo))
    res = runner.invoke(app, ["session", "start"])
    assert res.exit_code == 3
    assert res.output.strip() == ("genesis: error: git is not installed or not on PATH "
                                  "(install git 2.25 or newer)")


def test_changing_the_embedder_or_chunker_redoes_only_affected_blobs(
        repo: Path, monkeypatch, genesis_env: Path) -> None:
    start_json()
    monkeypatch.setenv("GENESIS_EMBED_DIM", "64")
    redo = start_json("--new")
    assert redo["misses"] == 4 and redo["hits"] == 0
    monkeypatch.delenv("GENESIS_EMBED_DIM")
    back = start_json("--new")
    assert back["misses"] == 0  # the old embedder's blobs are still cached
    shipped = chunk_mod.CHUNKER_VERSION
    monkeypatch.setenv("GENESIS_INDEX_CHUNK_MAX_LINES", "40")  # a knob of the chunker
    bumped = start_json("--new")
    assert bumped["misses"] == 4
    monkeypatch.delenv("GENESIS_INDEX_CHUNK_MAX_LINES")
    assert start_json("--new")["misses"] == 0  # the shipped chunker's blobs are still cached
    conn = connect(genesis_env / "genesis.db")
    versions = {(r[0], r[1]) for r in conn.execute(
        "SELECT chunker_version, embedder_id FROM rag_blob_cache")}
    assert (f"{shipped}-40x3000", "hash-t1-256") in versions
    assert (shipped, "hash-t1-64") in versions


def test_cache_stats_and_gc(repo: Path) -> None:
    start_json()
    write(repo, "scratch.md", "# temporary\n\nnot committed\n")
    runner.invoke(app, ["session", "refresh"])
    assert runner.invoke(app, ["search", "order"]).exit_code == 0  # saves a search base
    stats = json.loads(runner.invoke(app, ["cache", "stats", "--json"]).output)
    assert stats["blobs"] == 5 and stats["mapped_blobs"] == 5
    assert stats["search_bases"] == 1 and stats["search_bytes"] > 0
    assert stats["content_bytes"] > 0 and stats["embedding_bytes"] == 0  # hashed: derived
    assert runner.invoke(app, ["session", "end"]).exit_code == 0
    dry = runner.invoke(app, ["cache", "gc", "--dry-run"])
    assert dry.output.strip().startswith("would remove 1 blobs (")
    assert "and 1 search bases" in dry.output
    assert json.loads(runner.invoke(app, ["cache", "stats", "--json"]).output)["blobs"] == 5
    done = json.loads(runner.invoke(app, ["cache", "gc", "--json"]).output)
    assert done["blobs_removed"] == 1 and done["blobs_kept"] == 4
    assert done["search_bases_removed"] == 1
    plain = runner.invoke(app, ["cache", "stats"])
    assert "blobs:    4" in plain.output and "search:   0 saved search bases" in plain.output
    assert "MB of packed text and terms, 0.0 MB of stored vectors" in plain.output


def test_session_start_in_plain_text(repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    res = runner.invoke(app, ["session", "start"])
    assert res.exit_code == 0
    assert res.output.startswith("started s-")
    assert "skipped (binary): blob.bin" in res.output


def test_chunking_of_python_markdown_and_bounds() -> None:
    py = "import os\n\n@decorator\ndef alpha():\n    return 1\n\nclass Beta:\n    x = 1\n"
    chunks = chunk_mod.chunk_text("a.py", py)
    assert [(c.kind, c.symbol, c.start_line, c.end_line) for c in chunks] == [
        ("module", None, 1, 2), ("function", "alpha", 3, 5), ("class", "Beta", 7, 8)]
    md = "# Orders\n\nintro\n\n## Fields\n\n```\n# not a heading\n```\n"
    assert [c.section for c in chunk_mod.chunk_text("a.md", md)] == ["Orders", "Orders > Fields"]
    long_class = "class Big:\n" + "".join(f"    def m{i}(self):\n        return {i}\n\n"
                                          for i in range(40))
    parts = chunk_mod.chunk_text("b.py", long_class, max_lines=20)
    assert {c.kind for c in parts} == {"class", "method"} or {c.kind for c in parts} == {"method"}
    assert "Big.m0" in {c.symbol for c in parts}
    assert all(c.end_line - c.start_line + 1 <= 20 for c in parts)
    text = "\n".join(f"line {i}" for i in range(500))
    bounded = chunk_mod.chunk_text("c.txt", text, max_lines=30, max_chars=100)
    assert all(len(c.text) <= 100 and c.end_line - c.start_line < 30 for c in bounded)
    assert bounded[0].start_line == 1 and bounded[-1].end_line == 500
    broken = chunk_mod.chunk_text("d.py", "def (:\n  pass\n\nfunction x() {}\n")
    assert broken and broken[0].start_line == 1
    rst = "Title\n=====\n\nbody\n\nPart\n----\n\nmore\n"
    assert [c.section for c in chunk_mod.chunk_text("e.rst", rst)] == ["Title", "Title > Part"]
    sql = "CREATE TABLE orders (\n id int\n);\n\nCREATE TABLE users (\n id int\n);\n"
    assert [c.symbol for c in chunk_mod.chunk_text("s.sql", sql)] == ["orders", "users"]


@pytest.mark.parametrize("age, half, expected", [(0, 180, 0.0), (180, 180, 0.5),
                                                 (360, 180, 0.75), (10, 0, 0.0)])
def test_staleness_formula(age: float, half: float, expected: float) -> None:
    from genesis_git.index.classify import staleness

    assert staleness(age, half) == pytest.approx(expected)


def test_artifact_type_rules() -> None:
    from genesis_git.index.classify import artifact_type, content_hint

    assert artifact_type("db/migrations/0002_add.py", None) == "DB"
    assert artifact_type("api/openapi.yaml", None) == "API"
    assert artifact_type("app/api/routes.py", None) == "API"
    assert artifact_type("docs/requirements.md", None) == "REQ"
    assert artifact_type("docs/adr/0001-use-sqlite.md", None) == "ARCH"
    assert artifact_type("requirements.txt", None) == "OTHER"
    assert artifact_type("app/models/order.py", content_hint("x.py", "__tablename__ = 'o'")) == "DB"
    assert artifact_type("x/handlers.py", content_hint("x.py", "@router.get('/x')\n")) == "API"
    assert artifact_type("notes.md", None, {"notes.md": "arch"}) == "ARCH"
    assert artifact_type("web/Button.tsx", None) == "UI"
    assert content_hint("spec.yaml", "openapi: 3.0.0\n") == "API"


def test_git_worktrees_share_one_store(repo: Path, tmp_path: Path, genesis_env: Path,
                                       monkeypatch) -> None:
    monkeypatch.delenv("GENESIS_HOME")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    start_json()
    monkeypatch.chdir(tmp_path / "wt")
    other = start_json()
    assert other["misses"] == 0 and other["hits"] == 4
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    common = common if common.is_absolute() else repo / common
    assert (common / "genesis" / "genesis.db").exists()
    listing = json.loads(runner.invoke(app, ["session", "list", "--all", "--json"]).output)
    assert len({s["worktree"] for s in listing["sessions"]}) == 2


def test_subprocess_entry_point(repo: Path) -> None:
    proc = subprocess.run(["genesis", "session", "start", "--json"], capture_output=True,
                          text=True, env={**os.environ, "PATH": os.path.dirname(
                              __import__("sys").executable) + os.pathsep + os.environ["PATH"]})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files"] == 4


def test_the_design_library_is_never_indexed(repo: Path) -> None:
    write(repo, ".shared/design-library/index.json", '{"postings": {}}\n')
    write(repo, "custom/lib/manifest.json", "{}\n")
    report = start_json()
    assert report["excluded"] == 1 and report["files"] == 5
    (repo / ".genesis.toml").write_text('[design]\nlibrary_dir = "custom/lib"\n')
    moved = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert moved["excluded"] == 1
    assert moved["files"] == 6  # .shared/… is an ordinary folder now, .genesis.toml is new


def test_a_new_embedder_is_picked_up_even_when_no_file_changed(repo: Path, monkeypatch) -> None:
    start_json()
    monkeypatch.setenv("GENESIS_EMBED_DIM", "64")
    again = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert again["misses"] == 4 and again["changed"] == 4
    settled = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert settled["misses"] == 0 and settled["changed"] == 0


def test_worker_processes_write_the_same_cache_as_one_process(tmp_path: Path, monkeypatch) -> None:
    files = {f"pkg/mod{i}.py": f"def create_order{i}(order):\n    return order * {i}\n\n\n"
                                f"class Order{i}:\n    total = {i}\n" for i in range(30)}
    files["docs/req/orders.md"] = "# 订单\n\n订单表新增字段 discount\n"
    root = make_repo(tmp_path / "many", files)
    monkeypatch.chdir(root)

    def cache(home: Path) -> list[tuple]:
        conn = connect(home / "genesis.db")
        conn.row_factory = None
        return sorted(conn.execute(
            "SELECT b.blob_sha, b.status, b.content_type, c.ord, c.start_line, c.end_line, c.kind, "
            "c.symbol, c.section, p.format, p.texts, p.terms, p.vectors, f.version, f.facts "
            "FROM rag_chunk_cache c JOIN rag_blob_cache b ON b.id = c.blob_id "
            "JOIN rag_blob_content p ON p.blob_id = b.id JOIN rag_blob_facts f ON f.blob_id = b.id"
            ))

    monkeypatch.setenv("GENESIS_HOME", str(tmp_path / "serial"))
    serial = start_json()
    pools: list[object] = []
    real_pool = pool.start

    def recording_pool(*args: object) -> object:
        pools.append(real_pool(*args))
        return pools[-1]

    monkeypatch.setattr(pool, "start", recording_pool)
    monkeypatch.setattr(pool, "POOL_MIN_MISSES", 1)
    monkeypatch.setattr(indexer, "BATCH", 4)
    monkeypatch.setattr(pool.os, "cpu_count", lambda: 2)
    monkeypatch.setenv("GENESIS_HOME", str(tmp_path / "pooled"))
    pooled = start_json()
    assert pools and pools[0] is not None  # the workers really ran
    assert pooled["misses"] == serial["misses"] == 31
    assert pooled["chunks"] == serial["chunks"] > 31
    assert cache(tmp_path / "pooled") == cache(tmp_path / "serial")


def test_unchanged_files_follow_new_classify_rules_and_owners(repo: Path, genesis_env: Path) -> None:
    start_json()
    before = map_rows(genesis_env)["README.md"]
    assert before["artifact_type"] != "ARCH" and before["owner"] is None
    (repo / ".genesis.toml").write_text('[classify]\nrules = { "README.md" = "ARCH" }\n')
    start_json()
    assert map_rows(genesis_env)["README.md"]["artifact_type"] == "ARCH"
    write(repo, "CODEOWNERS", "*.md @writers\n")
    start_json()
    assert map_rows(genesis_env)["README.md"]["owner"] == "@writers"


def test_a_refresh_that_finds_nothing_new_does_not_read_the_map(repo: Path, genesis_env: Path,
                                                                 monkeypatch) -> None:
    reads: list[str] = []
    real = indexer.previous_state

    def counting(conn, session_id):  # type: ignore[no-untyped-def]
        reads.append(session_id)
        return real(conn, session_id)

    monkeypatch.setattr(indexer, "previous_state", counting)
    first = start_json()
    write(repo, "notes.md", "# Draft\n\nfirst words\n")
    refresh = runner.invoke(app, ["session", "refresh", "--json"])
    assert refresh.exit_code == 0, refresh.output
    before = len(reads)
    again = json.loads(runner.invoke(app, ["session", "refresh", "--json"]).output)
    assert len(reads) == before  # the same git output and stat: answered from the state key
    assert again["files"] == first["files"] + 1 and again["misses"] == 0

    def indexed(path: str) -> str | None:
        return map_rows(genesis_env).get(path, {}).get("blob_sha")

    old_sha = indexed("notes.md")
    write(repo, "notes.md", "# Draft\n\nother words\n")  # same size, new content and mtime
    assert runner.invoke(app, ["session", "refresh"]).exit_code == 0
    assert indexed("notes.md") not in (None, old_sha)
    monkeypatch.setenv("GENESIS_INDEX_EXCLUDE", "notes.md")  # a setting git knows nothing of
    assert runner.invoke(app, ["session", "refresh"]).exit_code == 0
    assert indexed("notes.md") is None
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")  # only HEAD moves
    assert runner.invoke(app, ["session", "refresh"]).exit_code == 0
    conn = connect(genesis_env / "genesis.db")
    head = conn.execute("SELECT head_sha FROM sessions WHERE status='active'").fetchone()[0]
    assert head == git(repo, "rev-parse", "HEAD").strip()


def test_new_chunk_bounds_rechunk_every_blob(repo: Path, genesis_env: Path, monkeypatch) -> None:
    write(repo, "docs/long.md", "# Long\n\n" + "".join(f"line {i}\n" for i in range(60)))
    first = start_json()
    monkeypatch.setenv("GENESIS_INDEX_CHUNK_MAX_LINES", "20")
    bounded = start_json("--new")
    assert bounded["misses"] == first["misses"] and bounded["hits"] == 0
    conn = connect(genesis_env / "genesis.db")
    spans = [r[0] for r in conn.execute(
        "SELECT c.end_line - c.start_line + 1 FROM rag_chunk_cache c JOIN rag_blob_cache b "
        "ON b.id = c.blob_id WHERE b.chunker_version LIKE '%-20x%'")]
    assert spans and max(spans) <= 20
    monkeypatch.delenv("GENESIS_INDEX_CHUNK_MAX_LINES")
    back = start_json("--new")
    assert back["misses"] == 0  # the blobs chunked with the default bounds are still cached
    done = json.loads(runner.invoke(app, ["cache", "gc", "--json"]).output)
    assert done["blobs_removed"] == bounded["misses"]  # HEAD holds them, but not under this key
    assert conn.execute("SELECT COUNT(*) FROM rag_blob_cache WHERE chunker_version LIKE '%-20x%'"
                        ).fetchone()[0] == 0


def test_a_large_session_gets_its_search_base_built_in_the_background(
        repo: Path, genesis_env: Path, monkeypatch) -> None:
    import time

    from genesis_git.app import background
    from genesis_git.search.base import prebuild
    from genesis_git.search.session_index import session_index
    from genesis_git.store.connect import search_base_path

    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["GENESIS_SEARCH_PREBUILD_CHUNKS"] = "1"  # this small repository counts as large
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "session", "start", "--json"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    session_id = json.loads(proc.stdout)["session"]
    ctx = open_context()
    base = search_base_path(ctx.conn, session_id)
    assert base is not None
    deadline = time.monotonic() + 60
    while not base.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert base.exists()  # written by the detached process, not by this test
    marker = base.with_suffix(".building")
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not marker.exists()  # the build is over
    assert not session_index(ctx.conn, session_id, embedder_from_config(ctx.config).id).rebuilt
    assert not prebuild.wanted(ctx, session_id)  # it exists now
    base.unlink()
    assert not prebuild.wanted(ctx, session_id)  # the default threshold: 5,000 chunks
    monkeypatch.setenv("GENESIS_SEARCH_PREBUILD_CHUNKS", "1")
    ctx = open_context()
    assert prebuild.wanted(ctx, session_id)
    assert background.build(str(repo), session_id) and base.exists()
    runner.invoke(app, ["session", "end"])
    assert not background.build(str(repo), session_id)  # an ended session gets no base


def test_the_background_build_lets_go_once_the_base_is_saved(repo: Path, genesis_env: Path,
                                                             monkeypatch) -> None:
    """A search waits for the base only: the facts of an older cache's blobs come after."""
    from genesis_git.app import background
    from genesis_git.impact import facts
    from genesis_git.store.connect import search_base_path

    session_id = start_json()["session"]
    ctx = open_context()
    ctx.conn.execute("DELETE FROM rag_blob_facts")  # as a store of an older version holds them
    base = search_base_path(ctx.conn, session_id)
    assert base is not None and not base.exists()
    steps: list[object] = []
    real = facts.ensure

    def ensuring(conn, blob_ids):  # type: ignore[no-untyped-def]
        steps.append("facts")
        return real(conn, blob_ids)

    monkeypatch.setattr(background.facts, "ensure", ensuring)
    assert background.build(str(repo), session_id, lambda: steps.append(("built", base.exists())))
    assert steps == [("built", True), "facts"]
    assert ctx.conn.execute("SELECT COUNT(*) FROM rag_blob_facts").fetchone()[0] >= 3


def test_one_background_build_per_session_at_a_time(tmp_path: Path) -> None:
    from genesis_git.kernel import locks
    from genesis_git.search.base import prebuild

    marker = tmp_path / "search" / "s-1.building"
    fd = prebuild._claim(marker)
    assert fd is not None and marker.exists()
    assert prebuild._claim(marker) is None  # a build is running
    locks.release(marker, fd)
    assert not marker.exists()
    # a build that dies holding the lock lets go of it, though its file stays
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from genesis_git.kernel import locks; "
         "fd = locks.try_lock(sys.argv[1]); print(fd is not None, flush=True); sys.stdin.read()",
         str(marker)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        assert prebuild._claim(marker) is None
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        holder.stdout.close()
    assert marker.exists()
    fd = prebuild._claim(marker)
    assert fd is not None
    locks.release(marker, fd)

def test_start_and_refresh_do_not_load_numpy(repo: Path) -> None:
    """Indexing a small delta and deciding on the background build stay numpy-free."""
    probe = ("import sys\n"
             "from genesis_git.cli.main import build_app\n"
             "for args in (['session', 'start'], ['session', 'refresh']):\n"
             "    try:\n"
             "        build_app('session')(args, prog_name='genesis')\n"
             "    except SystemExit as exc:\n"
             "        assert not exc.code, exc.code\n"
             "print('numpy' in sys.modules)\n")
    env = {**os.environ, "GENESIS_SEARCH_PREBUILD_CHUNKS": "1000000"}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"


def test_a_large_index_leaves_no_large_wal(repo: Path, genesis_env: Path, monkeypatch) -> None:
    from genesis_git.index import session as session_mod

    wal = genesis_env / "genesis.db-wal"
    monkeypatch.setattr(session_mod, "BIG_WRITE_CHUNKS", 10**9)
    ctx = open_context()  # its connection stays open, so the WAL file stays
    session_mod.start(ctx)
    assert wal.stat().st_size > 0  # a small index leaves its WAL to SQLite
    write(repo, "docs/more.md", "".join(f"# Part {i}\n\nmore text {i}\n\n" for i in range(50)))
    monkeypatch.setattr(session_mod, "BIG_WRITE_CHUNKS", 1)
    assert session_mod.refresh(ctx).chunks >= 1
    assert wal.stat().st_size == 0  # folded into the store and truncated
    assert ctx.conn.execute("PRAGMA journal_size_limit").fetchone()[0] == 4 << 20


def _racy(root: Path) -> list[str]:
    """The index's entries git must hash again on each status: stat time not before the
    index file's own (git's racy-clean rule, by seconds)."""
    index_mtime = int((root / ".git" / "index").stat().st_mtime)
    racy = []
    path = ""
    for line in git(root, "ls-files", "--debug").splitlines():
        if not line.startswith(" "):
            path = line
        elif line.strip().startswith("mtime:"):
            if int(line.split()[1].split(":")[0]) >= index_mtime:
                racy.append(path)
    return racy


def _make_racy(root: Path) -> float:
    """Files a minute old, their stat data recorded, then an index file older than they
    are: what a clone that wrote files and index in the same second leaves."""
    old = time.time() - 60
    for rel in git(root, "ls-files", "-z").split("\0"):
        if rel:
            os.utime(root / rel, (old, old))
    git(root, "update-index", "-q", "--refresh")
    past = old - 30
    os.utime(root / ".git" / "index", (past, past))
    assert _racy(root)
    return past


def test_start_lets_git_record_the_stat_cache_a_fresh_checkout_left_racy(repo: Path) -> None:
    staged = git(repo, "ls-files", "-s")
    _make_racy(repo)
    start_json()
    assert _racy(repo) == []
    assert git(repo, "ls-files", "-s") == staged  # only stat data moved
    assert git(repo, "status", "--porcelain") == ""


def test_start_goes_on_when_another_git_command_holds_the_index(repo: Path) -> None:
    index = repo / ".git" / "index"
    past = _make_racy(repo)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    data = start_json()
    assert data["files"] > 0
    assert lock.exists() and lock.read_bytes() == b""  # the other command's lock is untouched
    assert int(index.stat().st_mtime) == int(past)
