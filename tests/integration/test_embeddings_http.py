"""The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1, and with mocks."""

from __future__ import annotations

import io
import json
import urllib.error
from typing import Any

import pytest
from pytest_mock import MockerFixture

from genesis_git.kernel.errors import ExitCode
from genesis_git.providers.embedders import EmbeddingError, OpenAIEmbedder

from helpers import free_port_url, running


def test_real_server_round_trip_in_batches() -> None:
    with running(dim=32) as server:
        e = OpenAIEmbedder(server.base_url, "hash-model", "sk-secret", batch_size=2)
        texts = ["订单表新增字段", "OrderController", "", "login page", "the end"]
        vectors = e.embed(texts)
    assert len(vectors) == 5
    assert e.dim == 32
    expected = server.embed([t if t.strip() else " " for t in texts])
    for got, want in zip(vectors, expected, strict=True):
        assert got == pytest.approx(want)
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    assert {r["path"] for r in server.requests} == {"/v1/embeddings"}
    assert {r["auth"] for r in server.requests} == {"Bearer sk-secret"}
    assert server.requests[0]["body"]["model"] == "hash-model"
    assert server.requests[1]["body"]["input"] == [" ", "login page"]


def test_real_server_without_key_sends_no_authorization() -> None:
    with running() as server:
        OpenAIEmbedder(server.base_url + "/", "m").embed(["x y"])
    assert server.requests[0]["auth"] is None


def test_answers_out_of_order_are_put_back_in_order() -> None:
    with running(dim=16, mode="reversed") as server:
        vectors = OpenAIEmbedder(server.base_url, "m").embed(["order", "table", "user"])
    assert vectors == [pytest.approx(v) for v in server.embed(["order", "table", "user"])]


def test_empty_input_makes_no_request() -> None:
    with running() as server:
        assert OpenAIEmbedder(server.base_url, "m").embed([]) == []
    assert server.requests == []


@pytest.mark.parametrize(("mode", "message"), [
    ("500", "answered HTTP 500: model exploded (check embed.base_url and embed.model)"),
    ("401", "answered HTTP 401: invalid api key "
            "(check the API key in the variable named by embed.api_key_env)"),
    ("garbage", "gave a bad answer: not JSON (is embed.base_url an OpenAI-compatible /v1 root?)"),
    ("short", "gave a bad answer: 1 embeddings for 2 texts "
              "(is embed.base_url an OpenAI-compatible /v1 root?)"),
])
def test_bad_answers_are_clear_errors(mode: str, message: str) -> None:
    with running(mode=mode) as server:
        e = OpenAIEmbedder(server.base_url, "m")
        with pytest.raises(EmbeddingError) as err:
            e.embed(["order", "table"])
    assert str(err.value) == f"embedding endpoint {server.base_url}/embeddings {message}"
    assert err.value.exit_code == ExitCode.ENVIRONMENT


def test_slow_server_times_out() -> None:
    with running(mode="slow") as server:
        e = OpenAIEmbedder(server.base_url, "m", timeout=0.3)
        with pytest.raises(EmbeddingError, match=r"did not answer within 0.3 s \(raise embed"):
            e.embed(["order"])


def test_server_down_is_unreachable() -> None:
    url = free_port_url()
    with pytest.raises(EmbeddingError) as err:
        OpenAIEmbedder(url, "m", timeout=2).embed(["order"])
    assert str(err.value).startswith(f"embedding endpoint {url}/embeddings is unreachable: ")
    assert str(err.value).endswith("(start the server or fix embed.base_url)")


class _Resp(io.BytesIO):
    def __enter__(self) -> _Resp:
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()


def _answer(payload: Any) -> _Resp:
    return _Resp(json.dumps(payload).encode())


@pytest.mark.parametrize(("payload", "why"), [
    ({"nope": 1}, 'no "data" list'),
    ([1, 2], 'no "data" list'),
    ({"data": [{"index": 0}]}, 'item 0 has no "embedding" list'),
    ({"data": [{"index": 5, "embedding": [1.0]}]}, "item 0 has a wrong index 5"),
    ({"data": [{"index": 0, "embedding": ["a"]}]}, "item 0 is not a list of numbers"),
    ({"data": [{"index": 0, "embedding": []}]}, "item 0 is not a list of numbers"),
    ({"data": [{"index": 0, "embedding": [True]}]}, "item 0 is not a list of numbers"),
    ({"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 0, "embedding": [1.0, 0.0]}]},
     "item 1 has a wrong index 0"),
    ({"data": [{"index": 0, "embedding": [1.0, 0.0]}, {"index": 1, "embedding": [1.0]}]},
     "item 1 has 1 dimensions, expected 2"),
])
def test_malformed_answers_with_mock(mocker: MockerFixture, payload: Any, why: str) -> None:
    n = len(payload["data"]) if isinstance(payload, dict) and "data" in payload else 1
    mocker.patch("urllib.request.urlopen", return_value=_answer(payload))
    with pytest.raises(EmbeddingError) as err:
        OpenAIEmbedder("http://embed.test/v1", "m").embed(["t"] * n)
    assert str(err.value) == (f"embedding endpoint http://embed.test/v1/embeddings gave a bad "
                              f"answer: {why} (is embed.base_url an OpenAI-compatible /v1 root?)")


def test_mocked_request_shape_and_normalisation(mocker: MockerFixture) -> None:
    urlopen = mocker.patch("urllib.request.urlopen", return_value=_answer(
        {"data": [{"index": 0, "embedding": [3, 4]}, {"index": 1, "embedding": [0, 0]}]}))
    e = OpenAIEmbedder("http://embed.test/v1", "small", "k", timeout=7)
    assert e.embed(["a b", "c d"]) == [[0.6, 0.8], [0.0, 0.0]]
    req = urlopen.call_args.args[0]
    assert req.full_url == "http://embed.test/v1/embeddings"
    assert req.get_header("Authorization") == "Bearer k"
    assert json.loads(req.data) == {"model": "small", "input": ["a b", "c d"]}
    assert urlopen.call_args.kwargs["timeout"] == 7.0


def test_mocked_timeout_inside_urlerror(mocker: MockerFixture) -> None:
    mocker.patch("urllib.request.urlopen", side_effect=urllib.error.URLError(TimeoutError()))
    with pytest.raises(EmbeddingError, match="did not answer within 30 s"):
        OpenAIEmbedder("http://embed.test/v1", "m").embed(["x"])


def test_mocked_os_error_and_plain_http_error(mocker: MockerFixture) -> None:
    mocker.patch("urllib.request.urlopen", side_effect=ConnectionResetError("reset by peer"))
    with pytest.raises(EmbeddingError, match="is unreachable: reset by peer"):
        OpenAIEmbedder("http://embed.test/v1", "m").embed(["x"])
    err = urllib.error.HTTPError("http://embed.test/v1/embeddings", 503, "busy", {},  # type: ignore[arg-type]
                                 io.BytesIO(b"try later"))
    mocker.patch("urllib.request.urlopen", side_effect=err)
    with pytest.raises(EmbeddingError, match=r"answered HTTP 503: try later \(check"):
        OpenAIEmbedder("http://embed.test/v1", "m").embed(["x"])
