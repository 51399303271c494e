"""Configuration: defaults <- ``[tool.genesis]`` in pyproject.toml <- ``.genesis.toml`` <- env.

Keys are dotted (``index.max_file_bytes``).  An environment variable
``GENESIS_<SECTION>_<KEY>`` (upper case, dots as underscores) overrides a
key; its text is converted to the type of the default.
"""

from __future__ import annotations

import builtins
import copy
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from genesis_git.kernel.errors import ConfigError, GenesisError
from genesis_git.kernel.storyid import DEFAULT_STORY_PATTERN

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_FILE = ".genesis.toml"

DEFAULTS: dict[str, dict[str, Any]] = {
    "index": {
        "include": [],
        "exclude": [],
        "max_file_bytes": 1024 * 1024,
        "chunk_max_lines": 80,
        "chunk_max_chars": 3000,
    },
    "classify": {
        "rules": {},
        "components": {},
    },
    "staleness": {
        "half_life_days": 180.0,
    },
    "embed": {
        "provider": "hash",
        "dim": 256,
        "base_url": "",
        "model": "",
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 30.0,
        "on_error": "fallback",
    },
    "search": {
        "k": 10,
        "rrf_k": 60,
        "mode": "hybrid",
        "prebuild_chunks": 5000,
    },
    "text": {
        "synonyms": {},
    },
    "story": {
        "pattern": DEFAULT_STORY_PATTERN,
        "prefixes": [],
        "ignore": [],
        "require_story": False,
        "session_trailer": "story",
    },
    "ledger": {
        "mirror": "",
        "project_id": "",
        "share": False,
    },
    "impact": {
        "engine": "none",
        "timeout": 60.0,
        "base_url": "",
        "model": "",
        "api_key_env": "OPENAI_API_KEY",
        "k": 12,
    },
    "design": {
        "library_dir": ".shared/design-library",
        "top": 5,
        "brief_cards": 5,
        "max_chunks": 2000,
        "stall_minutes": 30,
        "profile": "",
    },
    "mcp": {
        "max_repos": 4,
    },
}

DESCRIPTIONS: dict[str, str] = {
    "index.include": "globs; when non-empty only matching paths are indexed",
    "index.exclude": "globs excluded from the index on top of .gitignore (the design library is always excluded)",
    "index.max_file_bytes": "files larger than this are skipped (bytes)",
    "index.chunk_max_lines": "upper bound of lines in one chunk",
    "index.chunk_max_chars": "upper bound of characters in one chunk",
    "classify.rules": 'extra artifact-type rules: glob = "REQ|ARCH|API|DB|UI|CODE|OTHER"',
    "classify.components": "glob = component name; default is the top-level folder",
    "staleness.half_life_days": "age in days at which staleness_score reaches 0.5",
    "embed.provider": '"hash" (offline, deterministic) or "openai" (an /v1/embeddings endpoint)',
    "embed.dim": "dimension of the hashing embedder",
    "embed.base_url": "base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1",
    "embed.model": "embedding model name sent to the endpoint",
    "embed.api_key_env": "name of the environment variable that holds the API key",
    "embed.timeout": "seconds before an embedding request gives up",
    "embed.on_error": '"fallback" (lexical-only with a warning) or "error"',
    "search.k": "results returned by default",
    "search.rrf_k": "k of reciprocal rank fusion",
    "search.mode": "hybrid, lexical or vector",
    "search.prebuild_chunks": "build the search base in the background after indexing a session of at "
                              "least this many chunks (0: never)",
    "text.synonyms": 'extra synonym groups: term = ["syn1", "syn2"]',
    "story.pattern": "regular expression of a story id in commit messages",
    "story.prefixes": 'when non-empty, only ids with these prefixes bind, e.g. ["STORY", "SHOP"]',
    "story.ignore": "prefixes that never bind, on top of the built-in list (UTF, SHA, ISO, RFC, "
                    "CVE, ...)",
    "story.require_story": "commit-msg rejects messages without a story id",
    "story.session_trailer": '"story" (add Genesis-Session to commits that name a story), '
                             '"always" or "never"',
    "ledger.mirror": "PostgreSQL URL of the organisation's mirror, without a password "
                     "(PGPASSWORD, ~/.pgpass or a service file hold it)",
    "ledger.project_id": "this repository's project in the mirror (default: its normalised "
                         "origin URL)",
    "ledger.share": "push the story ledger (refs/genesis/*) to the remote: genesis sync and the "
                    "pre-push hook (genesis init --share sets it)",
    "impact.engine": 'none, openai, or "cmd:<command line>" (prompt on stdin)',
    "impact.timeout": "seconds before the LLM engine gives up",
    "impact.base_url": "base URL of an OpenAI-compatible chat endpoint",
    "impact.model": "chat model name",
    "impact.api_key_env": "name of the environment variable that holds the API key",
    "impact.k": "chunks retrieved for the prompt",
    "design.library_dir": "folder of the design reference library",
    "design.top": "results of design search",
    "design.brief_cards": "cards in a brief (3-5)",
    "design.max_chunks": "a library larger than this gets a warning",
    "design.stall_minutes": "an unanswered design request is stalled after this",
    "design.profile": "optional profile file with active areas (JSON)",
    "mcp.max_repos": "repositories `genesis mcp` keeps loaded; the least recently used is closed",
}


class Config:
    """Merged configuration with dotted, typed access."""

    def __init__(self, data: Mapping[str, Mapping[str, Any]], sources: list[str] | None = None):
        self._data = {k: dict(v) for k, v in data.items()}
        self.sources = sources or []

    def get(self, key: builtins.str) -> Any:
        section, _, name = key.partition(".")
        try:
            return self._data[section][name]
        except KeyError:
            raise KeyError(f"unknown config key {key!r}") from None

    def int(self, key: builtins.str) -> builtins.int:
        return int(self.get(key))

    def float(self, key: builtins.str) -> builtins.float:
        return float(self.get(key))

    def str(self, key: builtins.str) -> builtins.str:
        return str(self.get(key))

    def bool(self, key: builtins.str) -> builtins.bool:
        return bool(self.get(key))

    def list(self, key: builtins.str) -> builtins.list[builtins.str]:
        return [str(x) for x in self.get(key)]

    def table(self, key: builtins.str) -> dict[builtins.str, Any]:
        return dict(self.get(key))

    def as_dict(self) -> dict[builtins.str, dict[builtins.str, Any]]:
        return copy.deepcopy(self._data)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise GenesisError(f"{path}: invalid TOML: {exc}", hint="fix the file or delete it") from None


def _merge(base: dict[str, dict[str, Any]], extra: Mapping[str, Any], origin: str,
           origins: dict[str, str]) -> None:
    for section, values in extra.items():
        if section not in base or not isinstance(values, Mapping):
            raise GenesisError(
                f"{origin}: unknown config section [{section}]",
                hint="valid sections: " + ", ".join(sorted(base)),
            )
        for name, value in values.items():
            if name not in base[section]:
                raise GenesisError(
                    f"{origin}: unknown config key {section}.{name}",
                    hint="see `genesis init` for every key",
                )
            default = DEFAULTS[section][name]
            if isinstance(default, bool) and not isinstance(value, bool):
                raise GenesisError(f"{origin}: {section}.{name} must be true or false")
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise GenesisError(f"{origin}: {section}.{name} must be a number")
            if isinstance(default, list) and not isinstance(value, list):
                raise GenesisError(f"{origin}: {section}.{name} must be a list")
            if isinstance(default, dict) and not isinstance(value, Mapping):
                raise GenesisError(f"{origin}: {section}.{name} must be a table")
            if isinstance(default, str) and not isinstance(value, str):
                raise GenesisError(f"{origin}: {section}.{name} must be a string")
            base[section][name] = value
            origins[f"{section}.{name}"] = origin


def _coerce_env(default: Any, text: str, var: str) -> Any:
    if isinstance(default, bool):
        low = text.strip().lower()
        if low in {"1", "true", "yes", "on"}:
            return True
        if low in {"0", "false", "no", "off", ""}:
            return False
        raise GenesisError(f"{var}={text!r} is not a boolean (use 1 or 0)")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise GenesisError(f"{var}={text!r} is not an integer") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise GenesisError(f"{var}={text!r} is not a number") from None
    if isinstance(default, list):
        return [p.strip() for p in text.split(",") if p.strip()]
    if isinstance(default, dict):
        raise GenesisError(f"{var}: tables cannot be set from the environment")
    return text


def load_config(root: Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read the configuration for the worktree at ``root`` (``None``: defaults and env only)."""
    env = os.environ if env is None else env
    data = copy.deepcopy(DEFAULTS)
    sources: list[str] = []
    origins: dict[str, str] = {}
    if root is not None:
        pyproject = root / "pyproject.toml"
        if pyproject.is_file():
            tool = _read_toml(pyproject).get("tool", {}).get("genesis")
            if tool:
                _merge(data, tool, f"{pyproject} [tool.genesis]", origins)
                sources.append(str(pyproject))
        own = root / CONFIG_FILE
        if own.is_file():
            _merge(data, _read_toml(own), str(own), origins)
            sources.append(str(own))
    for section, values in DEFAULTS.items():
        for name, default in values.items():
            var = f"GENESIS_{section}_{name}".upper()
            if var in env and not isinstance(default, dict):
                data[section][name] = _coerce_env(default, env[var], var)
                origins[f"{section}.{name}"] = var
                if f"env:{var}" not in sources:
                    sources.append(f"env:{var}")
    validate(data, origins)
    return Config(data, sources)


def _at_least(low: float) -> Any:
    def check(value: Any) -> str | None:
        return None if value >= low else f"must be {low:g} or more"
    return check


def _above(low: float) -> Any:
    def check(value: Any) -> str | None:
        return None if value > low else f"must be more than {low:g}"
    return check


def _one_of(*choices: str) -> Any:
    def check(value: Any) -> str | None:
        if str(value).strip().lower() in choices:
            return None
        return "must be one of " + ", ".join(choices)
    return check


def _regex(value: Any) -> str | None:
    import re

    if not str(value).strip():
        return "must not be empty"
    try:
        re.compile(value)
    except re.error as exc:
        return f"is not a valid regular expression ({exc})"
    return None


# The values a key may take beyond its type (the type is checked when the file is read).
CHECKS: dict[str, Any] = {
    "index.max_file_bytes": _at_least(0),
    "index.chunk_max_lines": _at_least(1),
    "index.chunk_max_chars": _at_least(1),
    "staleness.half_life_days": _above(0),
    "embed.provider": _one_of("hash", "openai"),
    "embed.dim": _at_least(8),
    "embed.timeout": _above(0),
    "embed.on_error": _one_of("fallback", "error"),
    "search.k": _at_least(1),
    "search.rrf_k": _at_least(0),
    "search.mode": _one_of("hybrid", "lexical", "vector"),
    "search.prebuild_chunks": _at_least(0),
    "story.pattern": _regex,
    "story.session_trailer": _one_of("story", "always", "never"),
    "impact.timeout": _above(0),
    "impact.k": _at_least(1),
    "design.top": _at_least(1),
    "design.brief_cards": _at_least(1),
    "design.max_chunks": _at_least(0),
    "design.stall_minutes": _at_least(0),
}


def validate(data: Mapping[str, Mapping[str, Any]], origins: Mapping[str, str]) -> None:
    """Refuse a value no command could use, naming the file (or variable) and the key."""
    for key, check in CHECKS.items():
        section, _, name = key.partition(".")
        value = data[section][name]
        problem = check(value)
        if problem is None:
            continue
        origin = origins.get(key, "the defaults")
        if origin.startswith("GENESIS_"):
            raise ConfigError(f"{origin}={value}: {key} {problem}")
        raise ConfigError(f"{origin}: {key} = {_toml_value(value)}: {problem}")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{}" if not value else "{ " + ", ".join(
            f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))  # pragma: no cover


def default_config_text() -> str:
    """The commented default ``.genesis.toml`` that ``genesis init`` writes."""
    lines = [
        "# genesis configuration. Every key is shown with its default, commented out.",
        "# The same keys may live under [tool.genesis.<section>] in pyproject.toml;",
        "# GENESIS_<SECTION>_<KEY> in the environment overrides both.",
    ]
    for section, values in DEFAULTS.items():
        lines.append("")
        lines.append(f"# [{section}]")
        for name, default in values.items():
            desc = DESCRIPTIONS.get(f"{section}.{name}", "")
            if desc:
                lines.append(f"# {name}: {desc}")
            lines.append(f"# {name} = {_toml_value(default)}")
    return "\n".join(lines) + "\n"


def reference_table() -> str:
    """The Markdown table of every key, its default and its meaning (docs/reference/configuration.md embeds it)."""
    rows = ["| key | default | meaning |", "|---|---|---|"]
    for section, values in DEFAULTS.items():
        for name, default in values.items():
            key = f"{section}.{name}"
            shown = _toml_value(default).replace("|", "\\|")
            meaning = DESCRIPTIONS.get(key, "").replace("|", "\\|")
            rows.append(f"| `{key}` | `{shown}` | {meaning} |")
    return "\n".join(rows)
