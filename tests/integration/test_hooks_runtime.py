"""The hooks' light runtime equals the full implementations it stands in for."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from genesis_git.config.settings import default_config_text, load_config
from genesis_git.git.repo import find_repo
from genesis_git.hooks import runtime
from genesis_git.kernel import gitrun, logfile, spawn, storepath
from genesis_git.kernel.errors import GenesisError
from genesis_git.store.connect import PAGE_SIZE, connect, store_path
from genesis_git.store.migrations import MIGRATIONS
from genesis_git.stories.commits import StoryRules, story_settings

from helpers import git, write


def test_repository_discovery_matches_find_repo(repo: Path, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    wt = repo.parent / "linked"
    git(repo, "worktree", "add", "-q", "-b", "linked", str(wt))
    for root in (repo, wt):
        monkeypatch.chdir(root)
        light, full = runtime.HookRepo.discover(), find_repo()
        assert (light.root, light.git_dir, light.common_dir, light.project_id) == (
            str(full.root), str(full.git_dir), str(full.common_dir), full.project_id)
        back = light.to_repo()
        assert (back.root, back.git_dir, back.common_dir) == (full.root, full.git_dir,
                                                              full.common_dir)
    monkeypatch.chdir(repo / "src")  # a subfolder finds the same repository
    assert (find_repo().root, find_repo().git_dir) == (repo.resolve(), (repo / ".git").resolve())
    monkeypatch.chdir(repo / ".git")
    with pytest.raises(GenesisError, match="inside the .git folder"):
        runtime.HookRepo.discover()
    with pytest.raises(GenesisError, match="inside the .git folder"):
        find_repo()


def test_store_location_and_pragmas_match_connect(repo: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    light = runtime.HookRepo.discover()
    assert runtime.store_path(light) == str(store_path(find_repo()))
    monkeypatch.delenv("GENESIS_HOME")
    assert runtime.store_path(light) == str(store_path(find_repo()))
    monkeypatch.setenv("GENESIS_HOME", "~/somewhere")
    assert runtime.store_path(light) == str(store_path(find_repo()))
    monkeypatch.setenv("GENESIS_HOME", str(repo.parent / "store"))
    monkeypatch.setenv("GENESIS_BUSY_TIMEOUT_MS", "1234")
    pragmas = ("journal_mode", "foreign_keys", "busy_timeout", "synchronous", "journal_size_limit")
    ours = runtime.open_store(light)  # the hook creates the store here
    theirs = connect(store_path(find_repo()))
    try:
        assert ours.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
        for name in pragmas:
            assert ours.execute(f"PRAGMA {name}").fetchone()[0] == \
                theirs.execute(f"PRAGMA {name}").fetchone()[0], name
    finally:
        ours.close()
        theirs.close()
    monkeypatch.setenv("GENESIS_BUSY_TIMEOUT_MS", "soon")
    assert storepath.busy_timeout_ms() == storepath.DEFAULT_BUSY_MS


def test_migrations_are_known_without_importing_them(repo: Path, genesis_env: Path) -> None:
    assert storepath.SCHEMA_VERSION == len(MIGRATIONS)
    light = runtime.HookRepo.discover()
    blank = genesis_env / "genesis.db"
    sqlite3.connect(blank).close()  # an empty file: nothing applied yet
    conn = runtime.open_store(light)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM _genesis_migrations ORDER BY id")]
        assert names == [m.__name__ for m in MIGRATIONS]
        assert runtime._up_to_date(conn)
        assert storepath.schema_version(conn) == len(MIGRATIONS)
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
        assert not runtime._up_to_date(conn)
    finally:
        conn.close()
    conn = runtime.open_store(light)  # an older store's version is brought up to date
    try:
        assert storepath.schema_version(conn) == len(MIGRATIONS)
        conn.execute("PRAGMA user_version = 0")  # as a store migrated before the version was kept
    finally:
        conn.close()
    connect(blank).close()
    conn = runtime.open_store(light, migrate=False)
    try:
        assert runtime._up_to_date(conn)
    finally:
        conn.close()


CONFIGS = {
    "none": {},
    "commented default": {".genesis.toml": default_config_text()},
    "genesis.toml": {".genesis.toml": '[story]\nrequire_story = true\npattern = "PROJ-\\\\d+"\n'},
    "pyproject": {"pyproject.toml": '[project]\nname = "x"\n\n[tool.genesis.story]\n'
                                    "require_story = true\n"},
    "pyproject without genesis": {"pyproject.toml": '[project]\nname = "user-story-tool"\n'},
}


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("env", [{}, {"GENESIS_STORY_REQUIRE_STORY": "yes"},
                                 {"GENESIS_STORY_PATTERN": "T\\d+", "GENESIS_STORY_REQUIRE_STORY": "0"},
                                 {"GENESIS_STORY_PREFIXES": "T, U", "GENESIS_STORY_SESSION_TRAILER":
                                  "always"}])
def test_story_settings_match_load_config(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                          name: str, env: dict[str, str]) -> None:
    for rel, text in CONFIGS[name].items():
        write(repo, rel, text)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    config = load_config(repo)
    assert story_settings(str(repo)) == StoryRules.from_config(config)


def test_story_settings_leave_errors_to_the_real_loader(repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENESIS_STORY_REQUIRE_STORY", "maybe")
    with pytest.raises(GenesisError, match="is not a boolean"):
        story_settings(str(repo))
    assert runtime.DEFAULT_PATTERN == load_config(None, env={}).str("story.pattern")


def test_the_hook_repo_raises_the_door_s_git_error(repo: Path) -> None:
    light = runtime.HookRepo.discover()
    with pytest.raises(gitrun.GitError, match="git rev-parse --verify failed: ") as err:
        light.git("rev-parse", "--verify", "no-such-ref")
    assert err.value.command == ("rev-parse", "--verify", "no-such-ref")
    assert err.value.status == 128
    assert light.git("rev-parse", "--verify", "-q", "nope", check=False) == b""


def test_spawn_detached_feeds_stdin_and_returns(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    code = f"import sys; open({str(target)!r}, 'wb').write(sys.stdin.buffer.read())"
    pid = spawn.spawn_detached(["-c", code], b"path\0sha\0", dict(os.environ))
    assert pid > 0
    os.waitpid(pid, 0)  # the hook never waits; the test does, to read the result
    assert target.read_bytes() == b"path\0sha\0"


def test_a_log_goes_to_the_first_place_that_can_be_written_and_rotates(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    first, second = blocked / "genesis.log", tmp_path / "logs" / "genesis.log"
    assert logfile.append_log([first, second], "one\n", rotate_at=10) == second
    assert second.read_text() == "one\n" and not first.exists()
    assert logfile.append_log([second], "two\n", rotate_at=10) == second
    assert second.read_text() == "one\ntwo\n"
    assert logfile.append_log([second], "three\n", rotate_at=5) == second  # 8 bytes > 5: rotated
    assert second.read_text() == "three\n"
    assert (tmp_path / "logs" / "genesis.log.1").read_text() == "one\ntwo\n"
    assert logfile.append_log([first], "lost\n") is None
