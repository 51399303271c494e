"""Typed settings: one declaration per key, parsed once into frozen objects that agree with
the dotted look-ups they replace."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from genesis_git.config import schema
from genesis_git.config.schema import SECTIONS, SETTINGS, Settings, declared
from genesis_git.config.settings import DEFAULTS, load_config
from genesis_git.kernel.errors import ConfigError, GenesisError


def _typed(settings: Settings, name: str) -> object:
    section, _, key = name.partition(".")
    return getattr(getattr(settings, section), key)


def test_every_setting_has_a_meaning_and_a_default_of_its_declared_type() -> None:
    kinds = {"int": int, "float": float, "str": str, "bool": bool,
             "tuple[str, ...]": list, "Mapping[str, Any]": dict}
    for section, cls in SECTIONS.items():
        for f in dataclasses.fields(cls):
            s = SETTINGS[f"{section}.{f.name}"]
            assert s.doc.strip(), s.name
            assert type(s.default) is kinds[str(f.type)] or s.typed is kinds[str(f.type)], s.name


def test_the_sections_are_the_settings_fields_in_file_order() -> None:
    assert list(SECTIONS) == [f.name for f in dataclasses.fields(Settings)]
    assert list(SECTIONS) == ["index", "classify", "staleness", "embed", "search", "text",
                              "story", "ledger", "impact", "check", "design", "mcp"]
    assert list(DEFAULTS) == list(SECTIONS)


def test_the_defaults_parse_to_the_declared_defaults() -> None:
    settings = load_config(None, env={}).settings
    assert settings == Settings()
    assert settings.search.k == 10 and settings.search.mode == "hybrid"
    assert settings.story.prefixes == () and settings.index.max_file_bytes == 1024 * 1024
    assert settings.staleness.half_life_days == 180.0


def test_settings_are_frozen(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text('[index]\nexclude = ["a/**"]\n'
                                            '[text]\nsynonyms = { cart = ["basket"] }\n')
    settings = load_config(tmp_path, env={}).settings
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.search.k = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.search = settings.search  # type: ignore[misc]
    assert settings.index.exclude == ("a/**",)
    with pytest.raises(TypeError):
        settings.text.synonyms["x"] = ["y"]  # type: ignore[index]
    assert dict(settings.text.synonyms) == {"cart": ["basket"]}


def test_file_values_take_the_type_of_their_default(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text(
        "[search]\nk = 5.0\n[staleness]\nhalf_life_days = 30\n[embed]\ntimeout = 2\n"
        "[design]\nstall_minutes = 0.5\n")
    config = load_config(tmp_path, env={})
    assert config.settings.design.stall_minutes == 0.5  # a number written as an integer
    assert Settings().design.stall_minutes == 30.0
    assert config.settings.search.k == 5 and type(config.settings.search.k) is int
    assert type(config.settings.staleness.half_life_days) is float
    assert type(config.settings.embed.timeout) is float
    # the raw values stay as the file wrote them: the index's settings key hashes them
    assert config.as_dict()["search"]["k"] == 5.0
    assert config.as_dict()["staleness"]["half_life_days"] == 30


def test_the_environment_overrides_files_through_the_declared_variable(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text("[search]\nk = 5\n")
    env = {"GENESIS_SEARCH_K": "7", "GENESIS_STORY_PREFIXES": "SHOP, STORY,",
           "GENESIS_LEDGER_SHARE": "yes", "GENESIS_IMPACT_TIMEOUT": "2.5"}
    config = load_config(tmp_path, env=env)
    assert config.settings.search.k == 7
    assert config.settings.story.prefixes == ("SHOP", "STORY")
    assert config.settings.ledger.share is True
    assert config.settings.impact.timeout == 2.5
    # in the order of the declaration
    assert config.sources == [str(tmp_path / ".genesis.toml"), "env:GENESIS_SEARCH_K",
                              "env:GENESIS_STORY_PREFIXES", "env:GENESIS_LEDGER_SHARE",
                              "env:GENESIS_IMPACT_TIMEOUT"]


@pytest.mark.parametrize(("var", "text", "message"), [
    ("GENESIS_LEDGER_SHARE", "maybe", "GENESIS_LEDGER_SHARE='maybe' is not a boolean (use 1 or 0)"),
    ("GENESIS_SEARCH_K", "ten", "GENESIS_SEARCH_K='ten' is not an integer"),
    ("GENESIS_EMBED_TIMEOUT", "soon", "GENESIS_EMBED_TIMEOUT='soon' is not a number"),
    ("GENESIS_SEARCH_K", "0", "GENESIS_SEARCH_K=0: search.k must be 1 or more"),
    ("GENESIS_SEARCH_MODE", "fuzzy",
     "GENESIS_SEARCH_MODE=fuzzy: search.mode must be one of hybrid, lexical, vector"),
])
def test_a_bad_variable_is_refused_with_one_line(var: str, text: str, message: str) -> None:
    with pytest.raises(GenesisError) as info:
        load_config(None, env={var: text})
    assert str(info.value) == message


def test_a_table_cannot_come_from_the_environment() -> None:
    assert SETTINGS["text.synonyms"].variable is None
    config = load_config(None, env={"GENESIS_TEXT_SYNONYMS": "a=b"})
    assert dict(config.settings.text.synonyms) == {}


def test_a_check_names_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text('[story]\nsession_trailer = "sometimes"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert str(info.value) == (f'{tmp_path / ".genesis.toml"}: story.session_trailer = '
                               '"sometimes": must be one of story, always, never')


@pytest.mark.parametrize(("check", "good", "bad", "problem"), [
    (schema.at_least(1), 1, 0, "must be 1 or more"),
    (schema.above(0), 0.5, 0, "must be more than 0"),
    (schema.one_of("a", "b"), " B ", "c", "must be one of a, b"),
    (schema.regex, r"[A-Z]+-\d+", "(", "is not a valid regular expression"),
    (schema.regex, "x", "  ", "must not be empty"),
])
def test_the_checks(check: schema.Check, good: object, bad: object, problem: str) -> None:
    assert check(good) is None
    assert (check(bad) or "").startswith(problem)


def test_the_typed_settings_agree_with_the_dotted_look_ups(tmp_path: Path) -> None:
    (tmp_path / ".genesis.toml").write_text(
        '[index]\ninclude = ["src/**"]\n[classify]\nrules = { "api/**" = "API" }\n'
        '[search]\nk = 4\nmode = "lexical"\n[story]\nrequire_story = true\n'
        '[design]\nprofile = "p.json"\n')
    config = load_config(tmp_path, env={"GENESIS_IMPACT_K": "3"})
    by_kind = {"integer": config.int, "number": config.float, "string": config.str,
               "boolean": config.bool, "list": config.list, "table": config.table}
    for s in declared():
        typed = _typed(config.settings, s.name)
        looked_up = (config.float if s.typed is float else by_kind[s.kind])(s.name)
        if s.kind == "list":
            assert typed == tuple(looked_up), s.name
        elif s.kind == "table":
            assert dict(typed) == looked_up, s.name  # type: ignore[call-overload]
        else:
            assert typed == looked_up and type(typed) is type(looked_up), s.name


def test_every_setting_is_read_by_attribute_somewhere() -> None:
    """A declared key that no code reads is dead; the typed name or the old dotted look-up
    counts."""
    package = Path(schema.__file__).resolve().parents[1]
    code = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py")
                     if p.parent.name != "config")
    unread = [s.name for s in declared()
              if f".{s.section}.{s.key}" not in code and f'"{s.name}"' not in code
              and not re.search(rf"\b{s.section}\.{s.key}\b", code)]
    assert unread == []
