# The seed API's own tests, as seed 000 prints them; the package is named genesis_git here.
# tests/test_impact_rag.py
from genesis_git.rag.embeddings import FakeEmbedder
from genesis_git.rag.store import RagStore
from genesis_git.rag.impact_rag import ImpactRAG


def test_retrieve_returns_relevant_chunk():
    store = RagStore(":memory:")
    rag = ImpactRAG(store, FakeEmbedder())
    sources = [
        ("OrderController.java", "public class OrderController { 创建订单 }"),
        ("UserAuth.java", "public class UserAuth { 用户登录认证 }"),
    ]
    rag.index("p1", sources)
    res = rag.retrieve("p1", "OrderController 的影响范围", k=1)
    assert res and "OrderController" in res[0]
