"""Bounds on what one query may cost: a pasted log is read in part, its weightiest terms kept."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from genesis_git.impact.agent import analyse_requirement, investigate
from genesis_git.impact.analyse import analyze
from genesis_git.index.session import ensure_session, open_context
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.search.engine import search
from genesis_git.search.query import analyse, analyse_bounded
from genesis_git.search.results import SearchOptions
from genesis_git.text.querybounds import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    bound_notes,
    bound_query,
    term_priority,
    weightiest,
)
from genesis_git.text.quoting import quoted
from genesis_git.text.tokens import analyze_query, analyze_query_counted

from helpers import genesis_cmd


def _words(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice("bcdfghjklmnpqrstvwxz") for _ in range(rnd.randint(5, 9)))
            for _ in range(n)]


def _log(size: int = 100_000) -> str:
    """A pasted log of ``size`` characters: a traceback, then thousands of distinct words."""
    head = ("Traceback (most recent call last):\n  File \"src/shop/orders.py\", line 7, in "
            "cancel_order\nOrderController cancel_order failed\n")
    return (head + " ".join(_words(size // 6)))[:size]


# -- the bounds themselves ------------------------------------------------------------

def test_bound_query_cuts_at_a_space_and_counts_what_it_left_out() -> None:
    text = "word " * 10_000  # 50,000 characters
    head, left_out = bound_query(text, 1_000)
    assert len(head) <= 1_000 and head.endswith("word")
    assert left_out == len(text) - len(head) > 0
    assert bound_query("short text", 1_000) == ("short text", 0)
    one_run = "a" * 5_000  # no space to cut at: a hard cut
    assert bound_query(one_run, 1_000) == ("a" * 1_000, 4_000)


def test_weightiest_prefers_weight_then_repeats_then_the_first() -> None:
    priority = {"first": 1.0, "second": 1.0, "heavy": 2.0, "third": 1.0, "light": 0.5}
    assert weightiest(priority, 3) == {"heavy", "first", "second"}
    assert weightiest(priority, 10) == set(priority)
    assert term_priority(1.0, 1) == 1.0 < term_priority(1.0, 3)
    assert term_priority(0.5, 4) < term_priority(1.0, 1) * 1.7


def test_analyze_query_keeps_the_most_repeated_words_before_synonyms() -> None:
    text = "alpha " * 3 + " ".join(_words(200)) + " 订单"
    terms, distinct = analyze_query_counted(text, max_terms=5)
    assert distinct == 202
    words = [t.term for t in terms if t.origin == "query"]
    assert len(words) == 5 and words[0] == "alpha"
    # a Chinese synonym key found in the text still brings its synonym
    assert any(t.term == "order" and t.origin == "synonym:订单" for t in terms)
    # without a bound nothing changes
    assert analyze_query("order table") == analyze_query("order table", max_terms=MAX_QUERY_TERMS)


def test_bound_notes_say_what_was_left_out() -> None:
    assert bound_notes(100, 0, 10, 10) == []
    notes = bound_notes(100_000, 67_232, 4_091, 32)
    assert notes == ["long query: only its first 32,768 of 100,000 characters were read",
                     "the query has 4,091 distinct terms: the 32 weightiest were used"]


def test_quoted_never_repeats_a_pasted_log() -> None:
    assert quoted("  the of and ") == "'the of and'"
    long = quoted("aaaa " * 20_000)
    assert long.endswith("… (99,999 characters)") and len(long) < 120
    assert "\n" not in quoted("line one\nline two " * 100)


# -- search ---------------------------------------------------------------------------

def test_a_huge_search_query_is_bounded_and_reported(repo: Path) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    query = _log()
    terms, notes = analyse_bounded(ctx.config, query)
    assert 0 < len(terms) <= MAX_QUERY_TERMS
    assert notes[0].startswith("long query: only its first 3") and "of 100,000 characters" in notes[0]
    assert notes[1].endswith(f"the {len(terms)} weightiest were used")
    # the words the log repeats and starts with are the ones kept; a traceback's chrome is
    # not one of them (it would take a place of the few kept)
    kept = {t.term for t in terms}
    assert {"cancelorder", "ordercontroller", "order", "shop"} <= kept
    assert not kept & {"traceback", "recent", "call", "line"}
    result = search(ctx, sid, query, SearchOptions(k=5))
    assert result.hits and result.hits[0].path == "src/shop/orders.py"
    assert result.warnings[:2] == notes
    assert analyse(ctx.config, query) == terms


def test_a_short_query_is_not_touched(repo: Path) -> None:
    ctx = open_context()
    terms, notes = analyse_bounded(ctx.config, "OrderController cancel 订单表")
    assert notes == []
    assert [t.term for t in terms][:3] == ["ordercontroller", "order", "controller"]


@pytest.mark.parametrize("query", [
    "a" * 100_000,                                            # one run, no space
    "订" * 30_000 + "单" * 30_000,                               # one Chinese run
    "".join(chr(0x4E00 + (i * 7919) % 20_000) for i in range(60_000)),  # 60,000 distinct bigrams
    "x@" * 50_000,                                           # e-mail-like noise
    " ".join(f"https://example.com/{w}/{w}" for w in _words(4_000)),
])
def test_hostile_queries_answer_with_one_short_line(repo: Path, query: str) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    try:
        result = search(ctx, sid, query, SearchOptions())
    except GenesisError as exc:
        assert len(str(exc)) < 300
        return
    assert result.warnings and result.warnings[0].startswith("long query")
    assert all(len(w) < 300 for w in result.warnings)


def test_the_stopword_error_does_not_repeat_the_query(repo: Path) -> None:
    ctx = open_context()
    with pytest.raises(GenesisError) as err:
        analyse(ctx.config, "the of and " * 10_000)
    assert len(str(err.value)) < 250 and "(109,999 characters)" in str(err.value)
    with pytest.raises(UsageError):
        analyse(ctx.config, " \n ")


# -- impact ---------------------------------------------------------------------------

def test_a_huge_requirement_is_bounded_and_reported(repo: Path) -> None:
    q = analyze(_log())
    assert len(q.weights) == MAX_QUERY_TERMS
    assert {"cancelorder", "ordercontroller"} <= set(q.weights)
    assert set(q.ident_tokens) <= set(q.weights)
    assert "cancel_order" in q.identifiers and len(q.identifiers) <= MAX_QUERY_TERMS
    assert q.notes[0].endswith("of 100,000 characters were read")
    ctx = open_context()
    report = investigate(ctx, _log(), session_id=ensure_session(ctx))
    assert report.warnings[:2] == q.notes
    assert report.result["files"][0]["path"] == "src/shop/orders.py"
    with pytest.raises(UsageError) as err:
        analyse_requirement("the of and " * 10_000)
    assert len(str(err.value)) < 250


def test_short_requirements_keep_every_term() -> None:
    q = analyze("订单表新增字段 discount_code for OrderService.create")
    assert q.notes == []
    assert "discount_code" in q.identifiers and "OrderService.create" in q.identifiers


def test_cli_impact_nothing_matches_names_the_query_in_short(repo: Path) -> None:
    query = " ".join(_words(16_000, seed=3))[:110_000]  # 110 KB of words that match nothing
    assert len(query) > MAX_QUERY_CHARS
    proc = subprocess.run([*genesis_cmd(), "impact", "--json", query], capture_output=True,
                          text=True, cwd=repo, timeout=120)
    assert proc.returncode == 1, proc.stderr  # nothing found
    assert json.loads(proc.stdout)["files"] == []
    lines = proc.stderr.splitlines()
    assert any(line.startswith("genesis: warning: long query") for line in lines)
    assert any(line.startswith("genesis: nothing in the index matches '") for line in lines)
    assert all(len(line) < 300 for line in lines), lines


def test_cli_search_reports_the_bounds_in_json(repo: Path) -> None:
    proc = subprocess.run([*genesis_cmd(), "search", "--json", "-k", "3", _log()],
                          capture_output=True, text=True, cwd=repo, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["results"] and len(data["terms"]) <= MAX_QUERY_TERMS
    assert data["warnings"][0].startswith("long query: only its first")
    assert "genesis: warning: long query" in proc.stderr
