# The seed API's own tests, as seed 000 prints them; the package is named genesis_git here.
# tests/test_rag_store.py
import math
from genesis_git.rag.store import RagStore


def _vec(*ones):
    v = [0.0] * 8
    for i in ones:
        v[i] = 1.0
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def test_search_returns_most_similar_chunk():
    s = RagStore(":memory:")
    s.reset_scope("p1")
    s.add("p1", ["订单模块处理创建", "用户认证登录"], [_vec(0, 1), _vec(4, 5)])
    res = s.search("p1", _vec(0, 1), k=1)
    assert res == ["订单模块处理创建"]


def test_reset_scope_clears():
    s = RagStore(":memory:")
    s.reset_scope("p1")
    s.add("p1", ["a"], [_vec(0)])
    s.reset_scope("p1")
    assert s.search("p1", _vec(0), k=3) == []
