"""``--explain`` says why an identifier query and a ``--files`` search ordered what they did."""

from __future__ import annotations

from genesis_git.search.explain import explain_lines


def test_the_tier_of_an_identifier_query_is_a_line() -> None:
    lines = explain_lines({"bm25": 1.0, "boosts": {}, "exact": "definition"}, 60, "lexical")
    assert lines[-1] == "exact   definition"
    assert not any(ln.startswith("exact") for ln in explain_lines({"bm25": 1.0}, 60, "lexical"))


def test_impact_s_reasons_for_a_file_are_a_line_biggest_first() -> None:
    lines = explain_lines({"bm25": 1.0, "impact": {"path": 0.35, "text": 1.0, "commits": 0.3}},
                          60, "lexical")
    assert lines[-1] == "impact  text 1.000 + path 0.350 + commits 0.300"
