"""Search: BM25 with synonyms, token/tag/profile boosts, weights, licenses, blocking, RAG-J."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from genesis_git.design.cards import query_values, value_keys
from genesis_git.design.index import load_index
from genesis_git.design.library import LibraryUnavailable, open_library
from genesis_git.design.search import fmt6, rnd, search, search_index
from genesis_git.kernel.errors import UsageError

from helpers import LIB, card, design, ok, snapshot, tok, write, write_manifest

CARDS = [
    card(1, "Dark card 深色卡片", ["dark", "card"],
         {"palette": [tok("surface", "#121212")], "radius": [tok("card", 16, "vp")]},
         "Outline instead of shadow on dark surfaces."),
    card(2, "Light card 浅色卡片", ["light", "card"],
         {"palette": [tok("surface", "#FAF8F4")], "radius": [tok("card", 20, "vp")]},
         "Warm white surface, generous spacing."),
    card(3, "Spacing scale", ["spacing"],
         {"spacing": [tok("md", 16, "vp"), tok("lg", 24, "vp")]},
         "Pick paddings from a fixed scale."),
    card(4, "Motion timing", ["motion"], {"motion": [tok("short", 200, "ms")]},
         "Short transitions for small changes."),
    card(5, "Unknown source card", ["card"], {"radius": [tok("card", 16, "vp")]},
         "A card with rounded corners.", license="unknown"),
]


@pytest.fixture
def small(repo: Path) -> Path:
    write_manifest(repo / "fixtures" / "manifest.json", CARDS)
    ok("ingest", "manifest", "fixtures/manifest.json")
    return repo


def _ids(result: dict) -> list[str]:
    return [r["cardId"] for r in result["results"]]


def test_values_are_found_and_normalised() -> None:
    assert query_values("圆角 20vp 与 #FAF8F4，对比 4.50:1，时长 240ms") == \
        ["20vp", "#faf8f4", "4.5:1", "240ms"]
    assert query_values("16 and 16.0 and v2 and 1.2.3 and #12345") == ["16", "1.2"]
    assert value_keys({"radius": [tok("card", 20, "vp")], "palette": [tok("bg", "#FAF8F4")],
                       "contrast": [tok("body", 4.5, ":1")]}) == \
        ["#faf8f4", "20", "20vp", "4.5", "4.5:1"]


def test_breakdown_adds_up_and_synonyms_reach_english_cards(small: Path) -> None:
    result = search(open_library(small), "深色 圆角 16vp")
    top = result["results"][0]
    assert top["cardId"] == "DSG-0001"
    b = top["breakdown"]
    assert set(b) == {"bm25", "tokenBoost", "profileBoost", "weight", "licenseFactor"}
    # 16vp matches a token value (+0.5); 深色 reaches the tag "dark" by synonym (+0.3)
    assert b["tokenBoost"] == 0.8 and b["profileBoost"] == 0
    assert math.isclose(top["score"], b["bm25"] + b["tokenBoost"], abs_tol=2e-6)
    terms = {t["term"]: (t["weight"], t["origin"]) for t in result["terms"]}
    assert terms["深色"] == (1.0, "query")
    assert terms["dark"] == (0.5, "synonym:深色")
    assert terms["radius"] == (0.5, "synonym:圆角")


def test_unknown_license_is_ranked_lower_with_a_warning(small: Path) -> None:
    result = search(open_library(small), "card corners 16vp")
    by_id = {r["cardId"]: r for r in result["results"]}
    assert by_id["DSG-0005"]["breakdown"]["licenseFactor"] == 0.8
    assert by_id["DSG-0001"]["breakdown"]["licenseFactor"] == 1.0
    assert "DSG-0005: license unknown; ranked lower and kept out of briefs" in result["warnings"]


def test_weight_and_block_from_feedback(small: Path) -> None:
    lib = open_library(small)
    before = {r["cardId"]: r["score"] for r in search(lib, "card surface")["results"]}
    ok("feedback", "DSG-0002", "useful")
    after = {r["cardId"]: r for r in search(lib, "card surface")["results"]}
    assert after["DSG-0002"]["breakdown"]["weight"] == 1.1
    b = after["DSG-0002"]["breakdown"]
    assert math.isclose(after["DSG-0002"]["score"], 1.1 * (b["bm25"] + b["tokenBoost"]),
                        abs_tol=3e-6)
    assert after["DSG-0002"]["score"] > before["DSG-0002"]
    ok("feedback", "DSG-0001", "block")
    assert "DSG-0001" not in _ids(search(lib, "dark card #121212", top=10))


def test_profile_boost_for_active_areas(small: Path) -> None:
    write(small, "aesthetic-profile.json", json.dumps(
        {"areas": [{"id": "AES-SPACING-01", "area": "spacing", "status": "active"},
                   {"id": "AES-MOTION-01", "area": "motion", "status": "retired"}]}))
    write(small, ".genesis.toml", '[design]\nprofile = "aesthetic-profile.json"\n')
    ok("init")  # rebuilds the index with the profile's active areas
    lib = open_library(small)
    index = load_index(lib)
    assert index["profile"] == {"file": "aesthetic-profile.json", "activeAreas": ["spacing"]}
    hit = search(lib, "间距 scale")["results"][0]
    assert hit["cardId"] == "DSG-0003" and hit["breakdown"]["profileBoost"] == 0.3
    motion = search(lib, "motion timing")["results"][0]
    assert motion["cardId"] == "DSG-0004" and motion["breakdown"]["profileBoost"] == 0


def test_bad_profile_is_one_clear_error(repo: Path) -> None:
    write(repo, ".genesis.toml", '[design]\nprofile = "missing.json"\n')
    res = design("init")
    assert res.exit_code == 1
    assert res.stderr.strip() == ("genesis: error: design.profile missing.json: no such file "
                                  "(fix design.profile in the config or create the file)")
    write(repo, "missing.json", "[1")
    assert "cannot be read" in design("init").stderr
    write(repo, "missing.json", '{"areas": 3}')
    assert "expected a list of areas" in design("init").stderr
    write(repo, "missing.json", '{"activeAreas": ["Spacing", "spacing", 3]}')
    ok("init")
    assert load_index(open_library(repo))["profile"]["activeAreas"] == ["spacing"]


def test_ties_are_ordered_by_card_id_and_runs_are_identical(repo: Path) -> None:
    twins = [card(i, f"Twin {w}", ["twin"], {"radius": [tok("r", 8, "dp")]}, "same words here")
             for i, w in ((1, "alpha"), (2, "beta"), (3, "gamma"))]
    write_manifest(repo / "f" / "manifest.json", twins)
    ok("ingest", "manifest", "f/manifest.json")
    lib = open_library(repo)
    first = search(lib, "same words")
    assert _ids(first) == ["DSG-0001", "DSG-0002", "DSG-0003"]
    assert len({r["score"] for r in first["results"]}) == 1
    assert search(lib, "same words") == first


def test_top_defaults_to_config_and_can_be_set(repo: Path) -> None:
    ok("ingest", "rules")
    lib = open_library(repo)
    assert len(search(lib, "contrast text color")["results"]) == 5
    assert len(search(lib, "contrast text color", top=2)["results"]) == 2
    write(repo, ".genesis.toml", "[design]\ntop = 3\n")
    assert len(search(open_library(repo), "contrast text color")["results"]) == 3


def test_max_chunks_warns_but_still_searches(repo: Path) -> None:
    write(repo, ".genesis.toml", "[design]\nmax_chunks = 10\n")
    ok("ingest", "rules")
    res = ok("search", "contrast", "--json")
    data = json.loads(res.stdout)
    assert data["results"]
    chunks = load_index(open_library(repo))["chunks"]["id"]
    warning = (f"the library has {len(chunks)} chunks, more than design.max_chunks=10; "
               "search still runs")
    assert warning in data["warnings"]
    assert f"genesis: warning: {warning}" in res.stderr


def test_empty_query_and_bad_top_are_usage_errors(small: Path) -> None:
    index = load_index(open_library(small))
    with pytest.raises(UsageError, match="the query is empty"):
        search_index(index, "   ")
    with pytest.raises(UsageError, match="--top must be at least 1"):
        search_index(index, "card", 0)
    res = design("search", " ")
    assert res.exit_code == 2
    assert res.stderr.strip() == ('genesis: error: the query is empty (e.g. genesis design '
                                  'search "深色 卡片 间距")')


def test_no_match_gives_no_results(small: Path) -> None:
    assert search(open_library(small), "zebra")["results"] == []
    res = design("search", "zebra")
    assert (res.exit_code, res.stdout, res.stderr) == (1, "", "genesis: no results\n")


def test_search_output_modes(small: Path) -> None:
    text = ok("search", "dark", "card").stdout
    assert text.startswith("1. DSG-0001  ")
    assert "   bm25 " in text and "× weight 1" in text
    md = ok("search", "dark", "card", "--markdown").stdout
    lines = md.splitlines()
    assert lines[0] == "# design search: dark card"
    assert lines[2] == ("| # | card | score | bm25 | tokenBoost | profileBoost | weight | title | "
                        "source | license |")
    assert lines[4].startswith("| 1 | DSG-0001 | ")
    data = json.loads(ok("search", "dark", "card", "--json").stdout)
    assert data["available"] is True and data["library"] == ".shared/design-library"
    assert data["ranker"] == "lexical" and data["reranked"] is False
    first = data["results"][0]
    assert set(first) == {"cardId", "title", "score", "breakdown", "section", "snippet", "tags",
                          "tokens", "images", "source"}
    unknown = ok("search", "rounded", "corners").stdout
    assert "× license 0.8" in unknown


def test_fmt6_and_rnd() -> None:
    assert fmt6(4.82) == "4.82" and fmt6(1.0) == "1" and fmt6(0.0) == "0"
    assert rnd(1.23456749) == 1.234567 and rnd(2.0000005) == 2.000001


def test_query_does_not_write(small: Path) -> None:
    before = snapshot(small / LIB)
    ok("search", "dark", "card", "--json")
    ok("search", "深色", "--markdown")
    ok("stats")
    ok("list")
    ok("status")
    assert snapshot(small / LIB) == before


# -- RAG-J ---------------------------------------------------------------------------

def test_rag_j_missing_or_corrupt_index_degrades_to_a_warning(small: Path) -> None:
    index = small / LIB / "index.json"
    index.unlink()
    res = design("search", "dark", "card")
    assert res.exit_code == 1  # nothing found
    assert res.stdout == ""
    assert res.stderr.strip().splitlines()[0] == ("genesis: warning: design library unavailable: "
                                  ".shared/design-library/index.json is missing (run `genesis "
                                  "design init` to rebuild it from manifest.json)")
    index.write_text('{"tokenizer": "t1"', encoding="utf-8")
    res = design("search", "dark", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["available"] is False and data["results"] == []
    assert "index.json is corrupt" in data["warnings"][0]
    index.write_text('{"tokenizer": "t1"}', encoding="utf-8")
    with pytest.raises(LibraryUnavailable, match="required fields are missing"):
        load_index(open_library(small))
    index.write_text(json.dumps({k: [] for k in (
        "params", "text", "areas", "profile", "avgLen", "cards", "chunks", "idf", "postings")}
        | {"tokenizer": "t0"}), encoding="utf-8")
    with pytest.raises(LibraryUnavailable, match="built with tokenizer t0"):
        load_index(open_library(small))
    index.write_text(json.dumps({k: [] for k in (
        "params", "text", "areas", "profile", "avgLen", "cards", "chunks", "idf", "postings")}
        | {"tokenizer": "t1"}), encoding="utf-8")
    with pytest.raises(LibraryUnavailable, match="bad chunks or postings"):
        load_index(open_library(small))
    # brief writes nothing and says why, and status says the library is unavailable
    res = design("brief", "dark card")
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith("genesis: error: no brief written: design library "
                                 "unavailable: ")
    assert not (small / "tasks").exists()
    status = json.loads(ok("status", "--json").stdout)
    assert status["library"]["state"] == "unavailable"
    assert status["library"]["available"] is False
    ok("init")
    assert search(open_library(small), "dark card")["results"]


def test_search_without_a_library_is_a_warning(repo: Path) -> None:
    res = design("search", "card")
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines()[0] == ("genesis: warning: design library unavailable: no design "
                                  "library at .shared/design-library (run `genesis design init`)")


def test_a_config_change_after_the_build_is_reported(small: Path) -> None:
    write(small, "profile.json", '{"activeAreas": ["spacing"]}')
    write(small, ".genesis.toml", '[design]\nprofile = "profile.json"\n\n'
                                  '[text]\nsynonyms = { "杂志" = ["magazine"] }\n')
    data = json.loads(ok("search", "card", "--json").stdout)
    assert data["warnings"][-1] == (
        "the index was built with other synonyms (text.synonyms) and profile areas "
        "(design.profile); run `genesis design init` to rebuild it")
    ok("init")
    assert json.loads(ok("search", "card", "--json").stdout)["warnings"] == [
        "DSG-0005: license unknown; ranked lower and kept out of briefs"]
    write(small, "profile.json", "{broken")
    assert "profile areas" in json.loads(ok("search", "card", "--json").stdout)["warnings"][-1]
