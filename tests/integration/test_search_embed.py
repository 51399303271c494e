"""Search with an OpenAI-compatible embedding endpoint: a real local server, then failures."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path

import pytest
from pytest_mock import MockerFixture
from typer.testing import CliRunner

from genesis_git.cli.main import app
from genesis_git.index.session import ensure_session, open_context
from genesis_git.providers.embedders import EmbeddingError
from genesis_git.search import SearchOptions, search

from helpers import free_port_url, running, write

runner = CliRunner()

FILES = {
    "docs/req/orders.md": "# 订单需求\n\n订单表新增字段 discount_code。\n",
    "src/orders.py": "class OrderController:\n    def create_order(self):\n        return 1\n",
    "src/login.py": "def login(user):\n    return user\n",
}


pytestmark = pytest.mark.shop(files=FILES, env={"TEST_EMBED_KEY": "sk-local"})


def configure(root: Path, base_url: str, on_error: str = "fallback") -> None:
    write(root, ".genesis.toml",
          f'[embed]\nprovider = "openai"\nbase_url = "{base_url}"\nmodel = "mini"\n'
          f'api_key_env = "TEST_EMBED_KEY"\ntimeout = 2.0\non_error = "{on_error}"\n'
          '[index]\nexclude = [".genesis.toml"]\n')


def test_hybrid_search_with_a_real_endpoint(shop: Path) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url)
        ctx = open_context()
        sid = ensure_session(ctx)
        indexed = len(server.requests)
        assert indexed >= 1  # the chunks were embedded by the endpoint
        res = search(ctx, sid, "OrderController create order", SearchOptions())
    assert res.mode == "hybrid" and res.warnings == []
    assert res.hits[0].path == "src/orders.py"
    assert res.hits[0].breakdown["vector_rank"] == 1
    query_request = server.requests[indexed]
    assert query_request["body"] == {"model": "mini", "input": ["OrderController create order"]}
    assert query_request["auth"] == "Bearer sk-local"
    embedders = {r[0] for r in ctx.conn.execute("SELECT embedder_id FROM rag_blob_cache")}
    assert embedders == {"openai-mini"}


def test_stored_vectors_are_float16_and_score_as_float32_would(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from genesis_git.index.cache import chunk_texts
    from genesis_git.providers.embedders import HashingEmbedder
    from genesis_git.search import vectors
    from genesis_git.search.session_index import session_index
    from genesis_git.store.blobs import chunk_details

    with running(dim=48) as server:
        configure(shop, server.base_url)
        ctx = open_context()
        sid = ensure_session(ctx)
    idx = session_index(ctx.conn, sid, "openai-mini")
    part = idx.chunk_parts[0]
    assert part.emb_t.dtype == np.float16 and part.emb_t.shape == (48, part.n) and not part.hashed
    rows = {r[0]: r for r in chunk_details(ctx.conn, [int(c) for c in idx.chunk_ids])}
    texts = chunk_texts(ctx.conn, {r[1] for r in rows.values()})
    reference = HashingEmbedder(48)  # what the server embeds with, in float64
    full = np.asarray(reference.embed([texts[rows[int(c)][1]][rows[int(c)][2]]
                                       for c in idx.chunk_ids]))
    qvec = np.asarray(reference.embed(["order create discount"])[0], dtype=np.float32)
    exact = (full @ qvec)[idx.rows_chunk]
    got = vectors.cosine_rows(idx, qvec)
    assert np.abs(got - exact).max() < 2e-3 and exact.max() > 0.1
    monkeypatch.setattr(vectors, "BLOCK", 2)  # blocks give the same numbers
    assert np.array_equal(vectors.cosine_rows(idx, qvec), got)
    sparse = np.zeros_like(qvec)
    sparse[:3] = qvec[:3]
    whole = (part.emb_t.astype(np.float32).T @ sparse)[idx.rows_chunk]
    assert np.allclose(vectors.cosine_rows(idx, sparse), whole, atol=1e-6)


def test_endpoint_down_falls_back_to_lexical_with_a_warning(shop: Path) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url)
        assert runner.invoke(app, ["session", "start"]).exit_code == 0
    res = runner.invoke(app, ["search", "OrderController", "--json"])  # the server is gone now
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mode"] == "lexical"
    assert data["results"][0]["path"] == "src/orders.py"
    assert len(data["warnings"]) == 1
    warning = data["warnings"][0]
    assert warning.startswith(f"embedding endpoint {server.base_url}/embeddings is unreachable: ")
    assert warning.endswith("(start the server or fix embed.base_url); showing lexical results "
                            "only (embed.on_error = fallback)")
    assert res.stderr == f"genesis: warning: {warning}\n"


def test_vector_mode_never_answers_silently_empty(shop: Path) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url)
        assert runner.invoke(app, ["session", "start"]).exit_code == 0
    res = runner.invoke(app, ["search", "login", "--mode", "vector"])
    assert res.exit_code == 0
    assert res.stdout.startswith("src/login.py:1-2\t")
    assert "showing lexical results only" in res.stderr


def test_endpoint_down_is_an_error_when_configured(shop: Path) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url, on_error="error")
        assert runner.invoke(app, ["session", "start"]).exit_code == 0
    res = runner.invoke(app, ["search", "OrderController"])
    assert res.exit_code == 3
    assert res.stdout == ""
    assert res.stderr.startswith(f"genesis: error: embedding endpoint {server.base_url}"
                                 "/embeddings is unreachable: ")


def test_bad_answer_from_a_real_server(shop: Path) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url, on_error="error")
        assert runner.invoke(app, ["session", "start"]).exit_code == 0
        server.mode = "garbage"
        res = runner.invoke(app, ["search", "OrderController"])
        assert res.exit_code == 3
        assert res.stderr == (f"genesis: error: embedding endpoint {server.base_url}/embeddings "
                              "gave a bad answer: not JSON (is embed.base_url an "
                              "OpenAI-compatible /v1 root?)\n")
        configure(shop, server.base_url, on_error="fallback")
        res = runner.invoke(app, ["search", "OrderController", "--json"])
        assert res.exit_code == 0
        assert json.loads(res.stdout)["mode"] == "lexical"


def test_mocked_endpoint_failure_with_pytest_mock(shop: Path, mocker: MockerFixture) -> None:
    with running(dim=48) as server:
        configure(shop, server.base_url)
        ctx = open_context()
        sid = ensure_session(ctx)
    mocker.patch("urllib.request.urlopen", side_effect=urllib.error.URLError("connection refused"))
    res = search(ctx, sid, "login", SearchOptions(mode="hybrid"))
    assert res.mode == "lexical"
    assert res.hits[0].path == "src/login.py"
    assert res.warnings == [
        f"embedding endpoint {server.base_url}/embeddings is unreachable: connection refused "
        "(start the server or fix embed.base_url); showing lexical results only "
        "(embed.on_error = fallback)"]
    configure(shop, server.base_url, on_error="error")
    with pytest.raises(EmbeddingError, match="is unreachable: connection refused"):
        search(open_context(), sid, "login", SearchOptions())


def test_lexical_mode_never_calls_the_endpoint(shop: Path, mocker: MockerFixture) -> None:
    configure(shop, free_port_url())
    write(shop, ".genesis.toml", (shop / ".genesis.toml").read_text().replace(
        'provider = "openai"', 'provider = "hash"'))
    ctx = open_context()
    sid = ensure_session(ctx)
    configure(shop, free_port_url(), on_error="error")
    urlopen = mocker.patch("urllib.request.urlopen")
    res = search(open_context(), sid, "login", SearchOptions(mode="lexical"))
    assert res.hits and urlopen.call_count == 0
