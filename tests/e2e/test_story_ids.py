"""Which words of a commit message are story ids, with the installed hooks firing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.stories.commits import NON_STORY_PREFIXES, StoryRules, ids_in_text

from helpers import git, open_session, query, write

runner = CliRunner()


def _setup(root: Path, home: Path, notes: tuple[str, ...] = ("a decision",)) -> None:
    open_session(root, home, *notes, doc="docs/req/orders.md")


_q = query


def _commit(root: Path, *messages: str, name: str = "f.txt") -> subprocess.CompletedProcess[str]:
    write(root, name, (root / name).read_text() + "x\n" if (root / name).exists() else "x\n")
    git(root, "add", name)
    args = [a for m in messages for a in ("-m", m)]
    proc = subprocess.run(["git", "commit", "-q", *args], cwd=root, text=True,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    return proc


def _stories(home: Path) -> list[str]:
    return [r[0] for r in _q(home, "SELECT story_id FROM story_records ORDER BY story_id")]


def _pending(home: Path) -> int:
    return int(_q(home, "SELECT COUNT(*) FROM session_artifacts WHERE bound_commit IS NULL")[0][0])


def test_encodings_hashes_and_standards_never_bind(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    _commit(repo, "upgrade UTF-8 handling and SHA-256 for ISO-8601 dates")
    _commit(repo, "Support UTF-16 file names")
    _commit(repo, "RFC-3339 timestamps; fixes CVE-2024-1234 and x86 X86-64 builds")
    assert _stories(genesis_env) == []
    assert _pending(genesis_env) == 1  # the note and the doc still wait for a story
    assert _q(genesis_env, "SELECT COUNT(*) FROM story_artifacts") == [(0,)]
    _commit(repo, "STORY-7: UTF-8 file names")
    assert _stories(genesis_env) == ["STORY-7"]
    assert _q(genesis_env, "SELECT title FROM story_records") == [("UTF-8 file names",)]
    assert _pending(genesis_env) == 0


def test_rebuild_reports_what_it_skipped(repo: Path, genesis_env: Path) -> None:
    for msg in ("upgrade UTF-8 handling", "UTF-8 everywhere", "SHA-256 ids", "STORY-3: real"):
        _commit(repo, msg)
    res = runner.invoke(app, ["story", "rebuild", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["skipped"] == {"UTF-8": 2, "SHA-256": 1}
    assert out["stories"] == ["STORY-3"]
    res = runner.invoke(app, ["story", "rebuild"])
    assert "skipped 2 ids that never bind" in res.output and "UTF-8 (2)" in res.output


def test_story_prefixes_and_ignore_from_the_config(repo: Path, genesis_env: Path) -> None:
    write(repo, ".genesis.toml", '[story]\nprefixes = ["STORY", "SHOP"]\n')
    git(repo, "add", ".genesis.toml")
    _setup(repo, genesis_env)
    _commit(repo, "JIRA-5: not ours")
    _commit(repo, "HTTP-2 and FOO-9 support")
    assert _stories(genesis_env) == []
    _commit(repo, "SHOP-4: checkout")
    _commit(repo, "STORY-9: orders")
    assert _stories(genesis_env) == ["SHOP-4", "STORY-9"]
    write(repo, ".genesis.toml", '[story]\nignore = ["JIRA"]\n')
    _commit(repo, "JIRA-6: ignored by the config")
    _commit(repo, "PROJ-1: a new prefix binds")
    assert _stories(genesis_env) == ["PROJ-1", "SHOP-4", "STORY-9"]


def test_init_proposes_the_prefixes_of_the_history(repo: Path, genesis_env: Path) -> None:
    for msg in ("SHOP-1: a", "SHOP-2: b", "STORY-1: c", "UTF-8 names", "SHOP-3: d"):
        _commit(repo, msg)
    res = runner.invoke(app, ["init", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["story_prefixes"] == [{"prefix": "SHOP", "commits": 3},
                                                        {"prefix": "STORY", "commits": 1}]
    (repo / ".genesis.toml").unlink()
    res = runner.invoke(app, ["init"])
    assert 'story.prefixes = ["SHOP", "STORY"]' in res.output


def test_story_trailer_values_must_be_ids(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    _commit(repo, "tidy the orders module", "Story: none, see JIRA later")
    assert _stories(genesis_env) == []
    assert _pending(genesis_env) == 1
    _commit(repo, "tidy more", "Story: STORY-8, later")
    assert _stories(genesis_env) == ["STORY-8"]


def test_ids_next_to_chinese_text(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env)
    _commit(repo, "修复STORY-103问题")
    _commit(repo, "STORY-101：新增字段")
    _commit(repo, "【STORY-102】折扣码")
    _commit(repo, "（STORY-104）订单，STORY-105、导出")
    titles = dict(_q(genesis_env, "SELECT story_id, title FROM story_records"))
    assert titles == {"STORY-101": "新增字段", "STORY-102": "折扣码",
                      "STORY-103": "修复STORY-103问题", "STORY-104": "订单，STORY-105、导出",
                      "STORY-105": "订单，STORY-105、导出"}
    # the note went to the first of them
    assert _q(genesis_env, "SELECT story_id FROM story_artifacts WHERE artifact_role="
                           "'decision'") == [("STORY-103",)]


def test_lowercase_id_says_why_it_binds_nothing(repo: Path, genesis_env: Path) -> None:
    _setup(repo, genesis_env, notes=())
    proc = _commit(repo, "story-16: lower case")
    assert _stories(genesis_env) == []
    assert proc.stderr.count("'story-16' is not a story id") == 1
    assert "STORY-16" in proc.stderr
    # with a pattern of its own, the repository decides what an id is: no note
    write(repo, ".genesis.toml", '[story]\npattern = "[a-z]+-\\\\d+"\n')
    proc = _commit(repo, "task-1: lower case on purpose")
    assert "not a story id" not in proc.stderr
    assert _stories(genesis_env) == ["task-1"]


def test_rules_compose_into_one_pattern() -> None:
    rules = StoryRules(prefixes=["STORY-", " SHOP"], ignore=["JIRA"])
    assert rules.prefixes == ("STORY", "SHOP")
    text = "STORY-1 SHOP-2 JIRA-3 UTF-8 STORYX-4 ABC-5"
    assert ids_in_text(text, rules.effective) == ["STORY-1", "SHOP-2"]
    assert ids_in_text(text, StoryRules(ignore=["JIRA"]).effective) == [
        "STORY-1", "SHOP-2", "STORYX-4", "ABC-5"]
    assert all(ids_in_text(f"{p}-1", StoryRules().effective) == [] for p in NON_STORY_PREFIXES)
    # a prefix that is listed binds even when the built-in list names it
    assert ids_in_text("ES-7 ES-8", StoryRules(prefixes=["ES"]).effective) == ["ES-7", "ES-8"]
    assert StoryRules(trailer="bogus").trailer == "story"
