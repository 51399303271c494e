"""RAG-E: the zero-dependency reader query.mjs (run by a real Node.js) scores exactly as genesis.

The library mixes rule cards, inbox cards (one with ``license: unknown``),
feedback weights and an active profile area, so that every term of the score
(bm25, value and tag boosts, profile boost, weight, license factor) takes
part in the comparison.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from helpers import LIB, copy_inbox, design, ok, run_reader, snapshot, write

QUERIES = [
    "深色 卡片 间距",
    "圆角 20vp",
    "touch target 48dp button",
    "动效 时长 easing 240ms",
    "#121212 dark surface contrast 4.5:1",
]


@pytest.fixture
def mixed(repo: Path) -> Path:
    write(repo, "profile.json", json.dumps({"activeAreas": ["spacing", "dark"]}))
    write(repo, ".genesis.toml", '[design]\nprofile = "profile.json"\n\n'
                                 '[text]\nsynonyms = { "杂志感" = ["magazine", "editorial"] }\n')
    ok("ingest", "rules")
    copy_inbox(repo, unknown_license_for_empty=True)
    ok("ingest", "inbox")
    ok("feedback", "DSG-0023", "useful")
    ok("feedback", "DSG-0030", "off")
    ok("feedback", "DSG-0024", "block")
    return repo


def _python(query: str, *extra: str) -> dict:
    res = ok("search", query, "--top", "5", "--json", *extra)
    return json.loads(res.stdout)


def test_rag_e_top5_ids_and_scores_are_identical(mixed: Path) -> None:
    seen_profile = seen_weight = False
    for query in QUERIES:
        py = _python(query)
        proc = run_reader(mixed, query, "--top", "5", "--json")
        assert proc.returncode == 0, proc.stderr
        js = json.loads(proc.stdout)
        assert py["results"], query
        assert [(r["cardId"], r["score"]) for r in js["results"]] == \
            [(r["cardId"], r["score"]) for r in py["results"]], query
        # the whole result is isomorphic: breakdown, snippets, tokens, terms, warnings
        assert js["results"] == py["results"], query
        assert js["terms"] == py["terms"] and js["warnings"] == py["warnings"], query
        for r in py["results"]:
            b = r["breakdown"]
            seen_profile |= b["profileBoost"] > 0
            seen_weight |= b["weight"] != 1
    assert seen_profile and seen_weight
    license_query = "列表 空态 empty"
    py = _python(license_query)
    js = json.loads(run_reader(mixed, license_query, "--top", "5", "--json").stdout)
    assert js["results"] == py["results"]
    assert py["results"][0]["breakdown"]["licenseFactor"] == 0.8
    assert js["warnings"] == py["warnings"] != []
    user_synonym = _python("杂志感")
    assert user_synonym["results"][0]["title"].startswith("杂志感卡片")
    assert json.loads(run_reader(mixed, "杂志感", "--json").stdout)["results"] == \
        user_synonym["results"]


def test_reader_markdown_and_text_match_genesis(mixed: Path) -> None:
    for query in QUERIES[:2]:
        md = run_reader(mixed, query, "--markdown")
        assert md.returncode == 0
        assert md.stdout == ok("search", query, "--markdown").stdout
        text = run_reader(mixed, query)
        assert text.stdout == ok("search", query).stdout
    top2 = run_reader(mixed, "深色", "卡片", "--top=2", "--json")
    assert [r["cardId"] for r in json.loads(top2.stdout)["results"]] == \
        [r["cardId"] for r in _python("深色 卡片")["results"][:2]]


def test_reader_is_read_only_and_recorded_in_the_manifest(mixed: Path) -> None:
    lib = mixed / LIB
    manifest = json.loads((lib / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["engineSha256"] == hashlib.sha256((lib / "query.mjs").read_bytes()).hexdigest()
    before = snapshot(mixed)
    for query in QUERIES:
        assert run_reader(mixed, query, "--json").returncode == 0
    assert snapshot(mixed) == before


def test_reader_exit_2_on_empty_missing_or_corrupt_index(repo: Path) -> None:
    ok("init")
    empty = run_reader(repo, "card")
    assert empty.returncode == 2
    assert "is empty: the library has no cards (run `genesis design ingest rules`)" in empty.stderr
    index = repo / LIB / "index.json"
    index.write_text("{oops", encoding="utf-8")
    bad = run_reader(repo, "card")
    assert bad.returncode == 2 and "index.json is corrupt" in bad.stderr
    assert "run `genesis design init`" in bad.stderr
    index.write_text('{"tokenizer": "t1"}', encoding="utf-8")
    partial = run_reader(repo, "card")
    assert partial.returncode == 2 and "required fields are missing" in partial.stderr
    ok("ingest", "rules")
    data = json.loads(index.read_text(encoding="utf-8"))
    data["tokenizer"] = "t9"
    index.write_text(json.dumps(data), encoding="utf-8")
    newer = run_reader(repo, "card")
    assert newer.returncode == 2 and "uses tokenizer t9; this reader knows t1" in newer.stderr
    index.unlink()
    missing = run_reader(repo, "card")
    assert missing.returncode == 2 and missing.stderr.startswith("query.mjs: no index at ")
    assert missing.stdout == ""


def test_reader_usage_errors(repo: Path) -> None:
    ok("ingest", "rules")
    assert run_reader(repo).returncode == 2
    assert "the query is empty" in run_reader(repo).stderr
    bad_top = run_reader(repo, "card", "--top", "zero")
    assert bad_top.returncode == 2 and "--top needs a positive integer" in bad_top.stderr
    unknown = run_reader(repo, "card", "--fast")
    assert unknown.returncode == 2 and "unknown option --fast" in unknown.stderr
    helped = run_reader(repo, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: node query.mjs")
    none = run_reader(repo, "zebra")
    assert none.returncode == 0 and none.stdout == "no results\n"


def test_reader_warns_about_a_large_library(repo: Path) -> None:
    write(repo, ".genesis.toml", "[design]\nmax_chunks = 10\n")
    ok("ingest", "rules")
    proc = run_reader(repo, "contrast")
    assert proc.returncode == 0
    assert "query.mjs: warning: the library has" in proc.stderr
    assert "more than design.max_chunks=10; search still runs" in proc.stderr
    assert design("search", "contrast").stderr == proc.stderr.replace(
        "query.mjs: warning:", "genesis: warning:")
