"""LLM engines for ``genesis impact --rag``: none (the default), any command, or an OpenAI-compatible endpoint.

* ``none`` — no LLM; the deterministic cross-reference is the answer.
* ``cmd:<command line>`` — runs the command (no shell) with the prompt on
  stdin and reads the answer from stdout: ``cmd:llm -m gpt-4o-mini``,
  ``cmd:ollama run qwen2.5``.
* ``openai`` — ``POST <impact.base_url>/chat/completions`` with
  ``impact.model``; the API key is read from the environment variable named
  by ``impact.api_key_env``.  Standard library only.

A timeout is always set (``impact.timeout``, 60 s by default).  Every failure
raises :class:`EngineError` with one line; the caller falls back to the
cross-reference.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING, Any, Protocol

from genesis_git.kernel.errors import GenesisError, UsageError

if TYPE_CHECKING:
    from genesis_git.config.settings import Config

DEFAULT_TIMEOUT = 60.0
SYSTEM_PROMPT = ("You assess the impact of a change request on a code base. "
                 "Answer with one JSON object and nothing else.")


class EngineError(GenesisError):
    """The engine failed, timed out or gave an answer that cannot be used."""


class Engine(Protocol):
    name: str

    def complete(self, prompt: str) -> str: ...


def _timeout(value: float | None) -> float:
    try:
        t = float(value) if value is not None else DEFAULT_TIMEOUT
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT
    return t if t > 0 else DEFAULT_TIMEOUT


class CommandEngine:
    """Any LLM command line: the prompt on stdin, the answer on stdout."""

    def __init__(self, command: str, timeout: float | None = DEFAULT_TIMEOUT):
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"engine cmd:{command}: cannot parse the command line ({exc})") from None
        if not self.argv:
            raise UsageError("engine \"cmd:\" needs a command line, e.g. cmd:llm -m gpt-4o-mini")
        self.command = command
        self.timeout = _timeout(timeout)
        self.name = f"cmd:{command}"

    def complete(self, prompt: str) -> str:
        try:
            proc = subprocess.run(self.argv, input=prompt.encode("utf-8"), capture_output=True,
                                  timeout=self.timeout)
        except FileNotFoundError:
            raise EngineError(f"engine command not found: {self.argv[0]}") from None
        except subprocess.TimeoutExpired:
            raise EngineError(f"engine {self.name} did not answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise EngineError(f"engine {self.name} cannot run: {exc.strerror or exc}") from None
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            tail = f": {err[-1]}" if err else ""
            raise EngineError(f"engine {self.name} exited with status {proc.returncode}{tail}")
        return proc.stdout.decode("utf-8", "replace")


class OpenAIEngine:
    """An OpenAI-compatible ``/chat/completions`` endpoint, called with ``urllib``."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT):
        if not base_url.strip():
            raise UsageError("engine openai needs impact.base_url",
                             hint="e.g. GENESIS_IMPACT_BASE_URL=http://127.0.0.1:8080/v1")
        if not model.strip():
            raise UsageError("engine openai needs impact.model",
                             hint="e.g. GENESIS_IMPACT_MODEL=gpt-4o-mini")
        from genesis_git.providers.http import endpoint

        self.url = endpoint(base_url, "/chat/completions")
        self.model = model.strip()
        self.api_key = api_key or None
        self.timeout = _timeout(timeout)
        self.name = f"openai:{self.model}"

    def complete(self, prompt: str) -> str:
        from genesis_git.providers.http import HttpFailure, post_json

        where = f"chat endpoint {self.url}"
        try:
            payload: Any = post_json(self.url, {
                "model": self.model,
                "temperature": 0,
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": prompt}],
            }, api_key=self.api_key, timeout=self.timeout, what=where)
        except HttpFailure as exc:
            if exc.kind == "not-json":
                raise EngineError(
                    f"{where} gave an answer without choices[0].message.content") from None
            raise EngineError(str(exc)) from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise EngineError(f"{where} gave an answer without choices[0].message.content") from None
        if not isinstance(content, str):
            raise EngineError(f"{where} gave a message content that is not text")
        return content


ENGINE_NAMES = ("none", "openai", "cmd:<command line>")


def get_engine(spec: str | None, config: Config | None = None) -> Engine | None:
    """The engine named by ``spec`` (default: ``impact.engine`` of ``config``); ``None`` for none."""
    if spec is None and config is not None:
        spec = config.settings.impact.engine
    name = (spec or "none").strip()
    timeout = config.settings.impact.timeout if config is not None else DEFAULT_TIMEOUT
    if name.lower() in ("", "none", "off"):
        return None
    if name.lower().startswith("cmd:"):
        return CommandEngine(name[4:].strip(), timeout)
    if name.lower() == "openai":
        base = config.settings.impact.base_url if config is not None else ""
        model = config.settings.impact.model if config is not None else ""
        key_env = config.settings.impact.api_key_env.strip() if config is not None else ""
        return OpenAIEngine(base, model, os.environ.get(key_env) if key_env else None, timeout)
    raise UsageError(f"unknown engine {name!r}", hint="use one of: " + ", ".join(ENGINE_NAMES))
