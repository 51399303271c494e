"""Configuration: defaults <- ``[tool.genesis]`` in pyproject.toml <- ``.genesis.toml`` <- env.

Keys are dotted (``index.max_file_bytes``).  An environment variable
``GENESIS_<SECTION>_<KEY>`` (upper case, dots as underscores) overrides a
key; its text is converted to the type of the default.  Every key is declared once, in
:mod:`genesis_git.config.schema`; :func:`load_config` merges the sources, checks them and
parses them once into the typed, immutable :class:`~genesis_git.config.schema.Settings`
that :attr:`Config.settings` holds (``config.settings.search.k``).
"""

from __future__ import annotations

import builtins
import copy
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from genesis_git.config.reference import default_config_text, reference_table
from genesis_git.config.schema import SETTINGS, Check, Settings, declared, toml_value
from genesis_git.kernel.environment import parse_bool
from genesis_git.kernel.errors import ConfigError, GenesisError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["CONFIG_FILE", "DEFAULTS", "Config", "Settings", "default_config_text", "load_config",
           "reference_table", "validate"]

CONFIG_FILE = ".genesis.toml"

# the file defaults by section, read off the declaration
DEFAULTS: dict[str, dict[str, Any]] = {}
for _s in declared():
    DEFAULTS.setdefault(_s.section, {})[_s.key] = _s.default
# the values a key may take beyond its type (the type is checked when the file is read)
CHECKS: dict[str, Check] = {s.name: s.check for s in declared() if s.check is not None}
# (setting, the variable that overrides it), for every setting that has one
_VARIABLES = tuple((s, s.variable) for s in declared() if s.variable is not None)


class Config:
    """Merged configuration: the typed :attr:`settings`, the sources it came from, and the
    older dotted look-ups (``config.int("search.k")``), kept as a thin layer over the same
    values."""

    def __init__(self, data: Mapping[str, Mapping[str, Any]], sources: list[str] | None = None):
        self._data = {k: dict(v) for k, v in data.items()}
        self.sources = sources or []
        self.settings = Settings.parse(self._data)

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
        """The merged values as the files hold them (the index's settings key hashes this)."""
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
            default = SETTINGS[f"{section}.{name}"].default
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
        found = parse_bool(text)
        if found is None:
            raise GenesisError(f"{var}={text!r} is not a boolean (use 1 or 0)")
        return found
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
    for setting, var in _VARIABLES:
        if var in env:
            data[setting.section][setting.key] = _coerce_env(setting.default, env[var], var)
            origins[setting.name] = var
            if f"env:{var}" not in sources:
                sources.append(f"env:{var}")
    validate(data, origins)
    return Config(data, sources)


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
        raise ConfigError(f"{origin}: {key} = {toml_value(value)}: {problem}")
