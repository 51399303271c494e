"""The mirror's URL handling, password masking and project identity (no server needed)."""

from __future__ import annotations

import pytest

from genesis_git.config.settings import load_config
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.mirror.conninfo import (
    ENV_URL,
    check_url,
    mask,
    password_of,
    resolve,
    scrub,
    secrets_of,
)
from genesis_git.mirror.project import normalise_remote, project_id


@pytest.mark.parametrize("url, expected", [
    ("postgresql://u:p%40ss@h:5432/db", "p@ss"),
    ("postgres://u@h/db?password=qq&sslmode=require", "qq"),
    ("postgresql://u@h/db", None),
    ("postgresql://h/db", None),
    ("host=h dbname=d password='it\\'s x' user=u", "it's x"),
    ("host=h password=plain", "plain"),
    ("host=h dbname=d", None),
])
def test_password_of(url: str, expected: str | None) -> None:
    assert password_of(url) == expected


def test_mask_and_scrub() -> None:
    assert mask("postgresql://u:hunter22@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert mask("postgres://u@h/db?sslmode=require&password=hunter22") == \
        "postgres://u@h/db?sslmode=require&password=***"
    assert mask("host=h password='a b c' user=u") == "host=h password=*** user=u"
    assert mask("postgresql://u@h/db") == "postgresql://u@h/db"
    assert scrub("login failed: hunter22 was wrong", ["hunter22", "ab"]) == \
        "login failed: *** was wrong"
    assert scrub("a b", ["ab"]) == "a b"  # too short to hunt for in free text


def test_secrets_include_pgpassword(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSWORD", "from-env")
    assert secrets_of("postgresql://u:in-url@h/db") == ["in-url", "from-env"]
    monkeypatch.delenv("PGPASSWORD")
    assert secrets_of("postgresql://u@h/db") == []


def test_check_url() -> None:
    check_url("postgresql://u@h/db", "--url")
    check_url("host=/tmp dbname=x", "--url")
    check_url("postgresql://u:pw@h/db", ENV_URL)  # the environment may hold it
    with pytest.raises(UsageError, match="seen by other users"):
        check_url("postgresql://u:pw@h/db", "--url")
    with pytest.raises(UsageError, match="gets committed") as info:
        check_url("postgresql://u:pw@h/db", "[ledger] mirror (.genesis.toml)")
    assert "pw@" not in str(info.value)
    with pytest.raises(UsageError, match="not a PostgreSQL URL"):
        check_url("mysql://u@h/db", "--url")
    with pytest.raises(UsageError, match="empty"):
        check_url("  ", "--url")


def test_resolve_order(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".genesis.toml").write_text('[ledger]\nmirror = "postgresql://cfg@h/db"\n')
    cfg = load_config(tmp_path, env={})
    assert resolve(None, cfg.str("ledger.mirror"), cfg.sources).url == "postgresql://cfg@h/db"
    assert ".genesis.toml" in resolve(None, cfg.str("ledger.mirror"), cfg.sources).source
    assert resolve("postgresql://flag@h/db", cfg.str("ledger.mirror"), cfg.sources).source == \
        "--url"
    env_cfg = load_config(tmp_path, env={ENV_URL: "postgresql://env:pw@h/db"})
    target = resolve(None, env_cfg.str("ledger.mirror"), env_cfg.sources)
    assert (target.url, target.source) == ("postgresql://env:pw@h/db", ENV_URL)
    assert target.shown == "postgresql://env:***@h/db"
    with pytest.raises(GenesisError, match="no PostgreSQL mirror is configured"):
        resolve(None, "", [])


@pytest.mark.parametrize("remote, expected", [
    ("git@github.com:Org/Shop.git", "github.com/Org/Shop"),
    ("https://github.com/Org/Shop", "github.com/Org/Shop"),
    ("https://user:token@GitHub.com:443/Org/Shop.git/", "github.com/Org/Shop"),
    ("ssh://git@github.com:22/Org/Shop.git", "github.com/Org/Shop"),
    ("ssh://git@host.example/~/repos/shop.git", "host.example/repos/shop"),
    ("file:///srv/git/shop.git", "/srv/git/shop"),
    ("/srv/git/shop.git", "/srv/git/shop"),
    ("../shop", "../shop"),
    ("C:\\repos\\shop.git", "C:/repos/shop"),
])
def test_normalise_remote(remote: str, expected: str) -> None:
    assert normalise_remote(remote) == expected


def test_project_id_sources() -> None:
    assert project_id(" team/shop ", "git@h:o/r.git", "r") == ("team/shop", "ledger.project_id")
    assert project_id("", "git@h:o/r.git", "r") == ("h/o/r", "origin")
    pid, source = project_id("", None, "folder")
    assert pid == "folder" and "set ledger.project_id" in source


def test_the_readme_shows_the_schema_as_migrated() -> None:
    from genesis_git.mirror.schema import SEED_002, SEVERAL_REPOSITORIES

    from helpers import ROOT

    readme = (ROOT / "docs" / "reference" / "mirror-schema.md").read_text(encoding="utf-8")
    assert SEED_002.strip() in readme
    assert SEVERAL_REPOSITORIES.strip() in readme
