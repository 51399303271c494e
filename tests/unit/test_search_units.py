"""The pieces of retrieval on their own: postings, BM25, fusion, explanations, shapes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from genesis_git.render.search import fence, language, to_json, to_markdown
from genesis_git.search import FileHit, Hit, SearchResult, group_by_file
from genesis_git.search.base import arrayfile
from genesis_git.search.explain import (
    contributions,
    explain_lines,
    highlight_spans,
    matched,
    snippet,
)
from genesis_git.search.grep import is_definition
from genesis_git.search.hybrid import ranks_beyond, rrf
from genesis_git.search.termindex import Part, TermIndex, bm25, term_hash
from genesis_git.text.tokens import QueryTerm


def test_term_hash_is_stable() -> None:
    assert term_hash("order") == term_hash("order")
    assert term_hash("order") != term_hash("orders")
    assert 0 <= term_hash("订单") < 2 ** 64


def test_postings_and_lengths() -> None:
    idx = TermIndex.build([["order", "table", "order"], ["table"], []])
    docs, tf = idx.postings(term_hash("order"))
    assert docs.tolist() == [0] and tf.tolist() == [2]
    docs, tf = idx.postings(term_hash("table"))
    assert docs.tolist() == [0, 1] and tf.tolist() == [1, 1]
    assert idx.postings(term_hash("missing"))[0].tolist() == []
    assert idx.dl.tolist() == [3.0, 1.0, 0.0]
    empty = TermIndex.build([[], []])
    assert empty.n_docs == 2 and empty.postings(term_hash("x"))[0].tolist() == []


def test_bm25_with_multiplicities_and_weights() -> None:
    idx = TermIndex.build([["a", "b"], ["b", "c", "c"], ["d"]])
    scores, stats = bm25([Part(idx, np.array([1.0, 2.0, 0.0]))], [("b", 1.0), ("c", 0.5), ("d", 1.0)])
    n, avgdl = 3.0, (2 * 1 + 3 * 2) / 3
    assert stats.n == n and stats.avgdl == pytest.approx(avgdl)
    df_b = 3  # doc 0 once, doc 1 twice
    idf_b = math.log(1 + (n - df_b + 0.5) / (df_b + 0.5))
    idf_c = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))

    def part(tf: float, dl: float, idf: float, w: float) -> float:
        return w * idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))

    assert scores[0][0] == pytest.approx(part(1, 2, idf_b, 1.0))
    assert scores[0][1] == pytest.approx(part(1, 3, idf_b, 1.0) + part(2, 3, idf_c, 0.5))
    assert scores[0][2] == 0.0  # "d" lives only in a document the session does not map
    assert [t.df for t in stats.terms] == [3, 2, 0]
    assert stats.contribution(stats.terms[1], 2, 3) == pytest.approx(part(2, 3, idf_c, 0.5))
    assert stats.contribution(stats.terms[2], 1, 1) == 0.0


def test_bm25_over_nothing() -> None:
    scores, stats = bm25([Part(TermIndex.empty(0), np.zeros(0))], [("a", 1.0)])
    assert scores[0].shape == (0,) and stats.n == 0 and stats.terms[0].df == 0


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf({"lexical": [7, 3, 5], "vector": [3, 9]}, k=60)
    assert fused[3].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[3].ranks == {"lexical": 2, "vector": 1}
    assert fused[7].score == pytest.approx(1 / 61) and fused[7].ranks == {"lexical": 1}
    assert fused[9].ranks == {"vector": 2}
    assert rrf({}, 60) == {}


def _hit(path: str, start: int, score: float, cid: int = 0, text: str = "x") -> Hit:
    return Hit(cid, path, start, start + 2, "Sec", None, "CODE", "comp", "@o", text, score,
               {"bm25": 1.0, "vector": 0.5, "rrf": score, "boosts": {"path": 0.0}})


def test_a_row_beyond_the_cut_lists_gets_its_rank_in_each_uncut_list() -> None:
    """One plus the rows under the list's mask that score more (ties share a rank); no
    rank where the row scores nothing or the mask leaves it out."""
    rnd = np.random.default_rng(3)
    for _ in range(300):
        n = int(rnd.integers(1, 400))
        lexical = rnd.integers(-2, 6, n).astype(float)  # many ties, zeros and negatives
        vector = rnd.random(n) * (rnd.random(n) < 0.4)
        mask = rnd.random(n) < 0.8
        channels = {"lexical": (lexical, mask), "vector": (vector, ~mask), "none": (0 * vector, mask)}
        rows = [int(r) for r in rnd.integers(0, n, int(rnd.integers(0, 25)))]
        fused = ranks_beyond(channels, rows, k=60)
        assert list(fused) == list(dict.fromkeys(rows))
        for row, item in fused.items():
            ranks = {name: 1 + int(np.count_nonzero(m & (v > v[row])))
                     for name, (v, m) in channels.items() if v[row] > 0 and m[row]}
            assert item.ranks == ranks and list(item.ranks) == list(ranks)
            assert item.score == sum(1.0 / (60 + r) for r in ranks.values())
    fused = ranks_beyond({"lexical": (np.array([3.0, 5.0, 3.0, 1.0]), np.ones(4, bool))}, [0, 2, 3])
    assert {row: item.ranks["lexical"] for row, item in fused.items()} == {0: 2, 2: 2, 3: 4}


def test_group_by_file_keeps_the_order_of_the_hits() -> None:
    # as one identifier arranges them: a definition that made no fused list (score 0) first
    hits = [_hit("b.py", 10, 0.0, 1), _hit("a.py", 1, 0.5, 2), _hit("b.py", 1, 0.9, 3),
            _hit("a.py", 5, 0.2, 4)]
    groups = group_by_file(hits)
    assert [(g.path, g.score) for g in groups] == [("b.py", 0.9), ("a.py", 0.5)]
    assert [c.start_line for c in groups[0].chunks] == [10, 1]
    assert groups[1].as_dict()["chunks"][0] == {**hits[1].as_dict(with_path=False)}
    hits[2].file_score = 0.3  # --files: impact's evidence ranks the file
    assert [g.score for g in group_by_file(hits)] == [0.3, 0.5]
    assert FileHit("x", 0.0).artifact_type == "OTHER"
    assert FileHit("x", 0.0).as_dict()["type"] is None


def test_matched_and_contributions() -> None:
    terms = [QueryTerm("order", 1.0, "query"), QueryTerm("table", 0.5, "synonym:表")]
    assert matched(terms, ["table", "x", "order"]) == ["order", "table"]
    idx = TermIndex.build([["order", "table"], ["x"]])
    _, stats = bm25([Part(idx, np.ones(2))], [("order", 1.0), ("table", 0.5)])
    shares = contributions(stats, ["order", "table"])
    assert list(shares) == ["order", "table"]
    assert shares["order"] == pytest.approx(2 * shares["table"])


def test_explain_lines_for_each_mode() -> None:
    b = {"bm25": 2.5, "vector": 0.41, "rrf": 1 / 61 + 1 / 62 + 1 / 63,
         "boosts": {"path": 0.5, "file": 0.25}, "lexical_rank": 1, "path_rank": 2,
         "vector_rank": 3, "terms": {"order": 2.0, "table": 0.5}, "path_terms": ["order"]}
    assert explain_lines(b, 60, "hybrid") == [
        "lexical 3.250 (rank 1) = bm25 2.500 [order 2.00, table 0.50] + path 0.500 [order]"
        " + file 0.250",
        "path    0.500 (rank 2)",
        "vector  0.410 (rank 3)",
        "rrf     1/(60+1) + 1/(60+2) + 1/(60+3) = 0.048395"]
    lex = {**b, "vector": None, "rrf": None, "vector_rank": None, "path_rank": None,
           "boosts": {"path": 0.0, "file": 0.0}}
    assert explain_lines(lex, 60, "lexical") == [
        "lexical 2.500 (rank 1) = bm25 2.500 [order 2.00, table 0.50]"]
    vec = {**b, "lexical_rank": None, "path_rank": None, "rrf": None}
    assert explain_lines(vec, 60, "vector")[1] == "vector  0.410 (rank 3)"
    assert explain_lines({**b, "lexical_rank": None}, 60, "hybrid")[0].startswith(
        "lexical 3.250 (not ranked)")


def test_highlight_and_snippet() -> None:
    text = "def create_order(items):\n    # 订单表新增字段\n    return OrderTable(items)\n"
    assert highlight_spans("OrderTable order", ["order", "table"]) == [(0, 10), (11, 16)]
    assert highlight_spans("订单表 x 订单", ["订单", "单表", "x"]) == [(0, 3), (6, 8)]
    assert snippet(text, ["订单", "字段", "新增"]) == "# 订单表新增字段"
    assert snippet(text, ["order", "table"]) == "return OrderTable(items)"
    assert snippet("", ["x"]) == ""
    long = "word " * 20 + "needle " + "word " * 60
    cut = snippet(long, ["needle"], width=40)
    assert cut.startswith("…") and cut.endswith("…") and "needle" in cut
    assert highlight_spans("ＯＲＤＥＲ", ["order"]) == [(0, 5)]


def test_language_and_fence() -> None:
    assert language("src/a.py") == "python" and language("Makefile") == ""
    assert language("x.unknown") == ""
    assert fence("plain") == "```"
    assert fence("has ``` inside and ````") == "`````"


def test_shapes_for_an_empty_result() -> None:
    res = SearchResult("zebra", [QueryTerm("zebra", 1.0, "query")], [],
                       ["no results: no chunk matches the query terms"], "hybrid", "s-1")
    data = to_json(res, files=True)
    assert data["results"] == [] and data["level"] == "file"
    assert to_markdown(res).endswith("_no results: no chunk matches the query terms_\n")


def test_markdown_keeps_fences_safe() -> None:
    hit = _hit("README.md", 1, 0.9, text="```bash\nmake\n```")
    md = to_markdown(SearchResult("make", [], [hit], [], "lexical", "s-1"))
    assert "````markdown\n```bash\nmake\n```\n````" in md


def test_arrayfile_round_trip_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "a.idx"
    arrays = {"ints": np.arange(5, dtype=np.int64), "mat": np.ones((2, 3), dtype=np.float32),
              "empty": np.zeros(0, dtype=np.uint16)}
    arrayfile.save(path, arrays, {"format": 1})
    meta, back = arrayfile.load(path)
    positions = meta.pop("positions")
    assert meta == {"format": 1} and set(positions) == set(arrays)
    raw = path.read_bytes()
    assert raw[positions["ints"]:positions["ints"] + 40] == arrays["ints"].tobytes()
    assert back["ints"].tolist() == [0, 1, 2, 3, 4]
    assert back["mat"].shape == (2, 3) and back["empty"].shape == (0,)
    assert not back["ints"].flags.writeable
    (tmp_path / "short").write_bytes(b"GN")
    with pytest.raises(ValueError, match="too short"):
        arrayfile.load(tmp_path / "short")
    (tmp_path / "other").write_bytes(b"PK\x03\x04" + bytes(100))
    with pytest.raises(ValueError, match="not an array file"):
        arrayfile.load(tmp_path / "other")
    data = path.read_bytes()
    (tmp_path / "cut").write_bytes(data[:-8])
    with pytest.raises(ValueError, match="truncated array"):
        arrayfile.load(tmp_path / "cut")
    (tmp_path / "hdr").write_bytes(data[:20])
    with pytest.raises(ValueError, match="truncated header"):
        arrayfile.load(tmp_path / "hdr")


def test_words_of_links_count_a_quarter() -> None:
    from genesis_git.config.settings import load_config
    from genesis_git.search.query import LINK_WEIGHT, analyse

    config = load_config(None, env={})
    terms = {t.term: t for t in analyse(
        config, "Fix login\n\nSee https://github.com/org/shop/pull/12 (Ann <ann@example.org>)")}
    assert terms["fix"].weight == 1.0 and terms["login"].origin == "query"
    assert terms["ann"].weight == 1.0  # also outside the address
    for word in ("github", "pull", "12", "example", "org"):
        assert terms[word].weight == LINK_WEIGHT and terms[word].origin == "link"
    assert terms["auth"].weight == 0.5  # a synonym of a plain word keeps its weight
    only = analyse(config, "https://example.com/订单")
    assert {t.term: t.weight for t in only} == {"http": 0.25, "example": 0.25, "com": 0.25,
                                                "订单": 0.25, "order": 0.125}
    assert analyse(config, "订单 https://x.io/y")[0].weight == 1.0


def test_a_pasted_traceback_is_searched_without_the_words_every_traceback_has() -> None:
    from genesis_git.config.settings import load_config
    from genesis_git.search.query import analyse

    config = load_config(None, env={})
    pasted = ('Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
              '  File "/srv/shop/cart.py", line 9, in total\n    return round_price(self.sum)\n'
              "ZeroDivisionError: division by zero")
    terms = {t.term for t in analyse(config, pasted)}
    assert {"cart", "total", "roundprice", "zerodivisionerror", "division"} <= terms
    assert not terms & {"traceback", "recent", "call", "file", "line", "module", "stdin"}
    # a query of nothing else looks for those words themselves
    alone = {t.term for t in analyse(config, "Traceback (most recent call last)")}
    assert {"traceback", "recent", "call"} <= alone


def test_the_grep_mode_s_definition_line_is_code_not_a_capitalised_sentence() -> None:
    for line in ("def refund(x):", "  class Order:", "export function go() {", "async def f():",
                 "CREATE TABLE orders (", "create index by_total on orders(total);"):
        assert is_definition(line), line
    for line in ("Class names are nouns.", "Type checking is optional.", "Let the order wait.",
                 "Function of the shop", "return def_x", "Export the orders"):
        assert not is_definition(line), line
