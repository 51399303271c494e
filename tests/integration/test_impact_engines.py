"""LLM engines: cmd:<command line> (a real subprocess) and openai (a real server on 127.0.0.1)."""

from __future__ import annotations

import json
import sys
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genesis_git.config.settings import load_config
from genesis_git.kernel.errors import UsageError
from genesis_git.providers.llm import (
    DEFAULT_TIMEOUT,
    CommandEngine,
    EngineError,
    OpenAIEngine,
    get_engine,
)

from helpers import CHAT_ANSWER, FakeOpenAI, running


@pytest.fixture
def chat_server() -> Iterator[FakeOpenAI]:
    with running() as server:
        yield server


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "llm.py"
    path.write_text(body, encoding="utf-8")
    return f"{sys.executable} {path}"


# -- cmd: ------------------------------------------------------------------------

def test_command_engine_sends_the_prompt_on_stdin(tmp_path: Path) -> None:
    cmd = script(tmp_path, "import sys, json\nprompt = sys.stdin.read()\n"
                           "print(json.dumps({'impacts': [{'target': prompt.strip()}]}))\n")
    engine = get_engine(f"cmd:{cmd}")
    assert isinstance(engine, CommandEngine)
    assert engine.timeout == DEFAULT_TIMEOUT
    assert json.loads(engine.complete("订单表新增字段")) == {"impacts": [{"target": "订单表新增字段"}]}


def test_command_engine_failures_are_one_line(tmp_path: Path) -> None:
    failing = CommandEngine(script(tmp_path, "import sys\nsys.stderr.write('quota exceeded\\n')\n"
                                             "sys.exit(3)\n"))
    with pytest.raises(EngineError, match=r"exited with status 3: quota exceeded$"):
        failing.complete("x")
    with pytest.raises(EngineError, match="engine command not found: no-such-llm-command"):
        CommandEngine("no-such-llm-command -m x").complete("x")
    slow = CommandEngine(script(tmp_path, "import time\ntime.sleep(30)\n"), timeout=0.3)
    with pytest.raises(EngineError, match=r"did not answer within 0.3 s"):
        slow.complete("x")


def test_command_line_must_parse() -> None:
    with pytest.raises(UsageError, match="needs a command line"):
        get_engine("cmd:")
    with pytest.raises(UsageError, match="cannot parse the command line"):
        get_engine("cmd:llm 'unclosed")


# -- openai -----------------------------------------------------------------------

def test_openai_engine_against_a_real_server(chat_server: FakeOpenAI,
                                             monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-test")
    (tmp_path / ".genesis.toml").write_text(
        f'[impact]\nbase_url = "{chat_server.base_url}"\nmodel = "m1"\n'
        'api_key_env = "MY_LLM_KEY"\ntimeout = 5\n', encoding="utf-8")
    engine = get_engine("openai", load_config(tmp_path))
    assert isinstance(engine, OpenAIEngine)
    assert engine.timeout == 5.0
    assert json.loads(engine.complete("订单表新增字段")) == CHAT_ANSWER
    req = chat_server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "m1"
    assert req["body"]["temperature"] == 0
    assert req["body"]["messages"][1] == {"role": "user", "content": "订单表新增字段"}


@pytest.mark.parametrize("mode, message", [
    ("500", "answered HTTP 500"),
    ("garbage", r"gave an answer without choices\[0\]\.message\.content"),
])
def test_openai_engine_bad_answers(chat_server: FakeOpenAI, mode: str, message: str) -> None:
    chat_server.mode = mode
    with pytest.raises(EngineError, match=message):
        OpenAIEngine(chat_server.base_url + "/chat/completions/", "m").complete("x")


def test_openai_engine_unreachable_and_timeouts(mocker: Any) -> None:
    engine = OpenAIEngine("http://127.0.0.1:9/v1", "m", timeout=0)
    assert engine.timeout == DEFAULT_TIMEOUT  # a timeout is always set
    urlopen = mocker.patch("urllib.request.urlopen",
                           side_effect=urllib.error.URLError(ConnectionRefusedError(111, "refused")))
    with pytest.raises(EngineError, match="is unreachable: refused"):
        engine.complete("x")
    assert urlopen.call_args.kwargs["timeout"] == DEFAULT_TIMEOUT
    urlopen.side_effect = TimeoutError()
    with pytest.raises(EngineError, match="did not answer within 60 s"):
        engine.complete("x")
    urlopen.side_effect = urllib.error.URLError(TimeoutError())
    with pytest.raises(EngineError, match="did not answer within 60 s"):
        engine.complete("x")
    urlopen.side_effect = ValueError("bad url")
    with pytest.raises(EngineError, match="is unreachable: bad url"):
        engine.complete("x")


def test_openai_engine_content_must_be_text(mocker: Any) -> None:
    response = mocker.MagicMock()
    response.read.return_value = b'{"choices": [{"message": {"content": null}}]}'
    mocker.patch("urllib.request.urlopen").return_value.__enter__.return_value = response
    with pytest.raises(EngineError, match="message content that is not text"):
        OpenAIEngine("http://127.0.0.1:9/v1", "m").complete("x")


def test_openai_engine_needs_url_and_model(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="engine openai needs impact.base_url"):
        get_engine("openai", load_config(tmp_path))
    with pytest.raises(UsageError, match="engine openai needs impact.model"):
        OpenAIEngine("http://x/v1", " ")


# -- choosing ---------------------------------------------------------------------

def test_get_engine_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_engine(None) is None
    assert get_engine("none") is None
    assert get_engine(None, load_config(tmp_path)) is None  # the default is none
    monkeypatch.setenv("GENESIS_IMPACT_ENGINE", "cmd:cat")
    monkeypatch.setenv("GENESIS_IMPACT_TIMEOUT", "7")
    engine = get_engine(None, load_config(tmp_path))
    assert isinstance(engine, CommandEngine) and engine.argv == ["cat"] and engine.timeout == 7.0
    with pytest.raises(UsageError, match="unknown engine 'gpt'"):
        get_engine("gpt")
