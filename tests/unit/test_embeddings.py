"""Embedders: the offline hashing embedder, seed 000's API, and the choice from config."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from genesis_git.config.settings import load_config
from genesis_git.kernel.errors import GenesisError
from genesis_git.providers.embedders import (
    FakeEmbedder,
    HashingEmbedder,
    OpenAIEmbedder,
    embedder_id,
    get_embedder,
)


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_fake_embedder_deterministic() -> None:
    e = FakeEmbedder()
    a = e.embed(["OrderController 创建订单"])[0]
    b = FakeEmbedder().embed(["OrderController 创建订单"])[0]
    assert a == b
    assert len(a) == 64
    assert math.isclose(math.sqrt(sum(x * x for x in a)), 1.0, rel_tol=1e-9)


def test_fake_embedder_similar_closer_than_unrelated() -> None:
    e = FakeEmbedder()
    base = e.embed(["OrderController 处理创建订单请求"])[0]
    sim = e.embed(["OrderController 保存订单到数据库"])[0]
    dif = e.embed(["用户登录认证模块"])[0]
    assert _cos(base, sim) > _cos(base, dif)


def test_get_embedder_fake_engine_returns_fake() -> None:
    assert get_embedder("fake").__class__.__name__ == "FakeEmbedder"
    assert get_embedder(None).__class__.__name__ == "FakeEmbedder"
    assert get_embedder().__class__.__name__ == "FakeEmbedder"


def test_get_embedder_hash_name_and_engine_objects() -> None:
    assert isinstance(get_embedder("hash"), HashingEmbedder)
    engine = HashingEmbedder(16)
    assert get_embedder(engine) is engine
    assert isinstance(get_embedder(object()), FakeEmbedder)
    with pytest.raises(GenesisError, match="unknown embedder 'word2vec'"):
        get_embedder("word2vec")


def test_hashing_embedder_ids_and_dimensions() -> None:
    assert HashingEmbedder(128).id == "hash-t1-128"
    assert FakeEmbedder().id == "hash-t1-64"
    assert len(HashingEmbedder(128).embed(["order table"])[0]) == 128
    with pytest.raises(ValueError, match="at least 8"):
        HashingEmbedder(4)


def test_empty_text_is_the_zero_vector() -> None:
    assert HashingEmbedder(8).embed(["the of", ""]) == [[0.0] * 8, [0.0] * 8]


def test_term_frequency_is_damped() -> None:
    e = HashingEmbedder(64)
    once = e.embed(["order table"])[0]
    many = e.embed(["order order order order table"])[0]
    assert once != many
    assert _cos(once, many) > 0.8


def test_get_embedder_from_config_hash(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text("[embed]\ndim = 48\n")
    e = get_embedder(load_config(tmp_path, env={}))
    assert isinstance(e, HashingEmbedder)
    assert embedder_id(e) == "hash-t1-48"


def test_get_embedder_from_config_openai(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text(
        '[embed]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1/"\n'
        'model = "text-embedding-3-small"\napi_key_env = "MY_EMBED_KEY"\ntimeout = 2.5\n')
    e = get_embedder(load_config(tmp_path, env={}))
    assert isinstance(e, OpenAIEmbedder)
    assert e.url == "http://127.0.0.1:9/v1/embeddings"
    assert e.id == "openai-text-embedding-3-small"
    assert e.timeout == 2.5
    assert e.api_key is None


def test_openai_key_comes_from_the_named_variable(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_EMBED_KEY", "sk-test")
    (tmp_path / ".genesis.toml").write_text(
        '[embed]\nprovider = "openai"\nbase_url = "http://x/v1"\nmodel = "m"\n'
        'api_key_env = "MY_EMBED_KEY"\n')
    e = get_embedder(load_config(tmp_path))
    assert isinstance(e, OpenAIEmbedder)
    assert e.api_key == "sk-test"


@pytest.mark.parametrize(("toml", "message"), [
    ('provider = "openai"\nmodel = "m"\n',
     'embed.provider is "openai" but embed.base_url is empty '
     "(set embed.base_url, e.g. http://127.0.0.1:8080/v1)"),
    ('provider = "openai"\nbase_url = "http://x/v1"\n',
     'embed.provider is "openai" but embed.model is empty '
     "(set embed.model to the endpoint's embedding model)"),
    ('provider = "bert"\n', '{file}: embed.provider = "bert": must be one of hash, openai'),
    ("dim = 4\n", "{file}: embed.dim = 4: must be 8 or more"),
])
def test_bad_embed_config_is_one_clear_line(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / ".genesis.toml").write_text("[embed]\n" + toml)
    with pytest.raises(GenesisError) as err:
        get_embedder(load_config(tmp_path, env={}))
    assert str(err.value) == message.format(file=tmp_path / ".genesis.toml")


def test_openai_id_is_safe_for_a_cache_key() -> None:
    assert OpenAIEmbedder("http://x/v1/embeddings", "org/model name").id == "openai-org_model_name"
    assert OpenAIEmbedder("http://x/v1/embeddings", "m").url == "http://x/v1/embeddings"
    with pytest.raises(ValueError):
        OpenAIEmbedder("http://x", "m", batch_size=0)


def test_embedder_id_of_an_engine_without_id() -> None:
    class Engine:
        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

    assert embedder_id(Engine()) == "engine"


def test_embedding_of_postings_equals_embedding_of_tokens() -> None:
    from collections import Counter

    import numpy as np

    from genesis_git.providers.embedders import hashing_dim
    from genesis_git.text.tokens import tokenize

    texts = ["order order table", "订单表新增字段 OrderController", "", "the a",
             "def create_order(self, order_id): return self.orders[order_id]"]
    e = HashingEmbedder(32)
    expected = np.asarray([e.embed_tokens(tokenize(t)) for t in texts])
    words: list[str] = []
    docs, tf = [], []
    for d, t in enumerate(texts):
        for word, n in Counter(tokenize(t)).items():
            words.append(word)
            docs.append(d)
            tf.append(n)
    cols, signs = e.slots(words)
    assert [(int(c), float(s)) for c, s in zip(cols, signs, strict=True)] == [
        e._slot(w) for w in words]
    got = e.embed_postings(cols, signs, np.asarray(docs), np.asarray(tf), len(texts))
    assert got.shape == (5, 32) and np.allclose(got, expected, atol=1e-12)
    assert not got[2].any() and not got[3].any()  # no terms: a zero vector
    assert hashing_dim(e.id) == 32 and hashing_dim("hash-t1-x") is None
    assert hashing_dim("openai-text-embedding-3-small") is None
