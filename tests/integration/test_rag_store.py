"""RagStore (seed 000, task 2): SQLite chunks per scope, exact cosine search."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from genesis_git.rag.store import RagStore


def _vec(*ones: int) -> list[float]:
    v = [0.0] * 8
    for i in ones:
        v[i] = 1.0
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


# -- the seed's own cases -------------------------------------------------------

def test_search_returns_most_similar_chunk() -> None:
    s = RagStore(":memory:")
    s.reset_scope("p1")
    s.add("p1", ["订单模块处理创建", "用户认证登录"], [_vec(0, 1), _vec(4, 5)])
    res = s.search("p1", _vec(0, 1), k=1)
    assert res == ["订单模块处理创建"]


def test_reset_scope_clears() -> None:
    s = RagStore(":memory:")
    s.reset_scope("p1")
    s.add("p1", ["a"], [_vec(0)])
    s.reset_scope("p1")
    assert s.search("p1", _vec(0), k=3) == []


# -- beyond the seed -------------------------------------------------------------

def test_scopes_are_separate_and_results_ordered_by_cosine() -> None:
    s = RagStore(":memory:")
    s.add("p1", ["near", "far", "middle"], [_vec(0), _vec(5), _vec(0, 5)])
    s.add("p2", ["other"], [_vec(0)])
    scored = s.search_scored("p1", _vec(0), k=3)
    assert [h.chunk for h in scored] == ["near", "middle", "far"]
    assert scored[0].score == pytest.approx(1.0)
    assert scored[1].score == pytest.approx(1 / math.sqrt(2), abs=1e-6)
    assert scored[2].score == 0.0
    assert s.scopes() == ["p1", "p2"]
    assert s.count("p1") == 3 and s.count("p2") == 1


def test_add_appends_and_replace_swaps_the_scope() -> None:
    s = RagStore(":memory:")
    s.add("p1", ["a"], [_vec(0)], [{"path": "a.py"}])
    s.add("p1", ["b"], [_vec(1)], [{"path": "b.py"}])
    assert [c.chunk for c in s.chunks("p1")] == ["a", "b"]
    assert [c.meta for c in s.chunks("p1")] == [{"path": "a.py"}, {"path": "b.py"}]
    s.replace("p1", ["c"], [_vec(2)])
    assert [c.chunk for c in s.chunks("p1")] == ["c"]


def test_ties_keep_insertion_order_so_search_is_deterministic() -> None:
    s = RagStore(":memory:")
    s.add("p", ["first", "second", "third"], [_vec(0), _vec(0), _vec(0)])
    assert s.search("p", _vec(0), k=2) == ["first", "second"]


def test_store_persists_in_a_file(tmp_path: Path) -> None:
    db = tmp_path / "sub" / "rag.db"
    s = RagStore(db)
    s.add("p1", ["订单"], [_vec(3)])
    s.close()
    again = RagStore(str(db))
    assert again.search("p1", _vec(3), k=5) == ["订单"]


def test_bad_input_is_refused() -> None:
    s = RagStore(":memory:")
    with pytest.raises(ValueError, match="2 chunks but 1 embeddings"):
        s.add("p", ["a", "b"], [_vec(0)])
    with pytest.raises(ValueError, match="1 chunks but 2 metadata entries"):
        s.add("p", ["a"], [_vec(0)], [{}, {}])
    s.add("p", ["a"], [_vec(0)])
    with pytest.raises(ValueError, match="8 dimensions, the query 3"):
        s.search("p", [1.0, 0.0, 0.0], k=1)
    assert s.search("p", _vec(0), k=0) == []
    assert s.search("missing", _vec(0), k=3) == []


def test_zero_vectors_score_zero() -> None:
    s = RagStore(":memory:")
    s.add("p", ["empty"], [[0.0] * 8])
    assert s.search_scored("p", _vec(1), k=1)[0].score == 0.0
