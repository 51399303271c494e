"""Every setting, declared once: its section, key, type, default, meaning and check.

Each section of the configuration is a frozen dataclass; each of its fields is one
setting made by :func:`setting`, which records the default as the file writes it, the
meaning and the values it may take beyond its type.  The loader
(:mod:`genesis_git.config.settings`), the commented file ``genesis init`` writes, the
configuration reference and the list of environment variables
(:mod:`genesis_git.config.reference`) are all read off these classes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, get_type_hints

from genesis_git.kernel.environment import setting_variable
from genesis_git.kernel.storyid import DEFAULT_STORY_PATTERN
from genesis_git.kernel.vocabulary import ARTIFACT_TYPES, SEARCH_MODES, TRAILER_MODES

Check = Callable[[Any], "str | None"]


# -- the checks: None when the value is fine, else what is wrong ----------------------------

def at_least(low: float) -> Check:
    def check(value: Any) -> str | None:
        return None if value >= low else f"must be {low:g} or more"
    return check


def above(low: float) -> Check:
    def check(value: Any) -> str | None:
        return None if value > low else f"must be more than {low:g}"
    return check


def one_of(*choices: str) -> Check:
    def check(value: Any) -> str | None:
        if str(value).strip().lower() in choices:
            return None
        return "must be one of " + ", ".join(choices)
    return check


def regex(value: Any) -> str | None:
    if not str(value).strip():
        return "must not be empty"
    try:
        re.compile(value)
    except re.error as exc:
        return f"is not a valid regular expression ({exc})"
    return None


def setting(default: Any, doc: str, check: Check | None = None, *,
            typed: type | None = None) -> Any:
    """One setting: a dataclass field that carries its file default, meaning and check.

    ``default`` is the value as the configuration file holds it (a list or a table for
    those kinds); the field's own default is its immutable form (a tuple, a read-only
    mapping).  ``typed`` is the type the typed value takes when it differs from the
    default's (``float`` for a number whose default is written as an integer)."""
    meta = {"default": default, "doc": doc, "check": check, "typed": typed}
    frozen = freeze(default) if typed is None else typed(default)
    if type(frozen).__hash__ is None:  # a read-only table: dataclasses want a factory for it
        return field(default_factory=lambda: frozen, metadata=meta)
    return field(default=frozen, metadata=meta)  # cheaper to build than a factory


def freeze(value: Any) -> Any:
    """A file value in its typed, immutable form: lists become tuples, tables read-only."""
    if isinstance(value, list):
        return tuple(str(x) for x in value)
    if isinstance(value, Mapping):
        return MappingProxyType(copy.deepcopy(dict(value)))
    return value


def convert(default: Any, value: Any, typed: type | None = None) -> Any:
    """A checked file value as the type of its default (a float ``k = 5.0`` is ``5``), or
    as ``typed`` when the setting names one."""
    if typed is not None:
        return typed(value)
    if isinstance(default, bool):
        return bool(value)
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    if isinstance(default, str):
        return str(value)
    return freeze(value)



def toml_value(value: Any) -> str:
    """``value`` as TOML writes it, on one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{}" if not value else "{ " + ", ".join(
            f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))  # pragma: no cover


# -- the sections ---------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexSettings:
    include: tuple[str, ...] = setting([], "globs; when non-empty only matching paths are indexed")
    exclude: tuple[str, ...] = setting(
        [], "globs excluded from the index on top of .gitignore (the design library is always "
            "excluded)")
    max_file_bytes: int = setting(1024 * 1024, "files larger than this are skipped (bytes)",
                                  at_least(0))
    chunk_max_lines: int = setting(80, "upper bound of lines in one chunk", at_least(1))
    chunk_max_chars: int = setting(3000, "upper bound of characters in one chunk", at_least(1))


@dataclass(frozen=True)
class ClassifySettings:
    rules: Mapping[str, Any] = setting(
        {}, 'extra artifact-type rules: glob = "' + "|".join(ARTIFACT_TYPES) + '"')
    components: Mapping[str, Any] = setting(
        {}, "glob = component name; default is the top-level folder")


@dataclass(frozen=True)
class StalenessSettings:
    half_life_days: float = setting(180.0, "age in days at which staleness_score reaches 0.5",
                                    above(0))


@dataclass(frozen=True)
class EmbedSettings:
    provider: str = setting(
        "hash", '"hash" (offline, deterministic) or "openai" (an /v1/embeddings endpoint)',
        one_of("hash", "openai"))
    dim: int = setting(256, "dimension of the hashing embedder", at_least(8))
    base_url: str = setting(
        "", "base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    model: str = setting("", "embedding model name sent to the endpoint")
    api_key_env: str = setting("OPENAI_API_KEY",
                               "name of the environment variable that holds the API key")
    timeout: float = setting(30.0, "seconds before an embedding request gives up", above(0))
    on_error: str = setting("fallback", '"fallback" (lexical-only with a warning) or "error"',
                            one_of("fallback", "error"))


@dataclass(frozen=True)
class SearchSettings:
    k: int = setting(10, "results returned by default", at_least(1))
    rrf_k: int = setting(60, "k of reciprocal rank fusion", at_least(0))
    mode: str = setting("hybrid", ", ".join(SEARCH_MODES[:-1]) + " or " + SEARCH_MODES[-1],
                        one_of(*SEARCH_MODES))
    prebuild_chunks: int = setting(
        5000, "build the search base in the background after indexing a session of at least "
              "this many chunks (0: never)", at_least(0))


@dataclass(frozen=True)
class TextSettings:
    synonyms: Mapping[str, Any] = setting({}, 'extra synonym groups: term = ["syn1", "syn2"]')


@dataclass(frozen=True)
class StorySettings:
    pattern: str = setting(DEFAULT_STORY_PATTERN,
                           "regular expression of a story id in commit messages", regex)
    prefixes: tuple[str, ...] = setting(
        [], 'when non-empty, only ids with these prefixes bind, e.g. ["STORY", "SHOP"]; '
            'a prefix with a digit (R12) binds only when listed')
    ignore: tuple[str, ...] = setting(
        [], "prefixes that never bind, on top of the built-in list (UTF, SHA, ISO, RFC, CVE, GH, "
            "PR, ...)")
    require_story: bool = setting(False, "commit-msg rejects messages without a story id")
    session_trailer: str = setting(
        "story", '"story" (add Genesis-Session to commits that name a story), "always" or "never"',
        one_of(*TRAILER_MODES))


@dataclass(frozen=True)
class LedgerSettings:
    mirror: str = setting("", "PostgreSQL URL of the organisation's mirror, without a password "
                              "(PGPASSWORD, ~/.pgpass or a service file hold it)")
    project_id: str = setting("", "this repository's project in the mirror (default: its "
                                  "normalised origin URL)")
    share: bool = setting(False, "push the story ledger (refs/genesis/*) to the remote: genesis "
                                 "sync and the pre-push hook (genesis init --share sets it)")
    remotes: tuple[str, ...] = setting(
        [], "the git remotes that get the shared ledger; no other remote ever does (genesis "
            "init --share writes the remote it sees; empty: origin, else the only remote)")


@dataclass(frozen=True)
class ImpactSettings:
    engine: str = setting("none", 'none, openai, or "cmd:<command line>" (prompt on stdin)')
    timeout: float = setting(60.0, "seconds before the LLM engine gives up", above(0))
    base_url: str = setting("", "base URL of an OpenAI-compatible chat endpoint")
    model: str = setting("", "chat model name")
    api_key_env: str = setting("OPENAI_API_KEY",
                               "name of the environment variable that holds the API key")
    k: int = setting(12, "chunks retrieved for the prompt", at_least(1))


@dataclass(frozen=True)
class DesignSettings:
    library_dir: str = setting(".shared/design-library", "folder of the design reference library")
    top: int = setting(5, "results of design search", at_least(1))
    brief_cards: int = setting(5, "cards in a brief (3-5)", at_least(1))
    max_chunks: int = setting(2000, "a library larger than this gets a warning", at_least(0))
    stall_minutes: float = setting(30, "an unanswered design request is stalled after this",
                                   at_least(0), typed=float)
    profile: str = setting("", "optional profile file with active areas (JSON)")


@dataclass(frozen=True)
class McpSettings:
    max_repos: int = setting(4, "repositories `genesis mcp` keeps loaded; the least recently "
                                "used is closed")
    max_answer_bytes: int = setting(65536, "bytes a `genesis mcp` tool answer may take (its "
                                           "text and both copies of its JSON); a longer one is "
                                           "cut and says where to continue", at_least(4096))


def unit(value: Any) -> str | None:
    return None if 0 <= value <= 1 else "must be between 0 and 1"


def subset_of(*choices: str) -> Check:
    def check(value: Any) -> str | None:
        wrong = [v for v in value if str(v) not in choices]
        return None if not wrong else f"holds {wrong[0]!r}; each must be one of " + ", ".join(
            choices)
    return check


CHECK_SOURCES = ("co-change", "references", "tests", "story", "docs")


@dataclass(frozen=True)
class CheckSettings:
    min_confidence: float = setting(0.5, "`genesis check` shows the files whose confidence (0-1) "
                                         "reaches this", unit, typed=float)
    top: int = setting(10, "files `genesis check` ranks at most", at_least(1))
    sources: tuple[str, ...] = setting(list(CHECK_SOURCES), "the evidence `genesis check` reads: "
                                       + ", ".join(CHECK_SOURCES), subset_of(*CHECK_SOURCES))
    pre_push: bool = setting(False, "the pre-push hook warns about the files the pushed commits "
                                    "probably forgot (never blocks unless fail_on is set)")
    fail_on: float = setting(0.0, "when above 0: `genesis check` exits 6, and the pre-push hook "
                                  "refuses the push, when a file's confidence reaches this",
                             unit, typed=float)


@dataclass(frozen=True)
class Settings:
    """The whole configuration, typed and immutable: ``settings.search.k``."""

    index: IndexSettings = field(default_factory=IndexSettings)
    classify: ClassifySettings = field(default_factory=ClassifySettings)
    staleness: StalenessSettings = field(default_factory=StalenessSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    text: TextSettings = field(default_factory=TextSettings)
    story: StorySettings = field(default_factory=StorySettings)
    ledger: LedgerSettings = field(default_factory=LedgerSettings)
    impact: ImpactSettings = field(default_factory=ImpactSettings)
    check: CheckSettings = field(default_factory=CheckSettings)
    design: DesignSettings = field(default_factory=DesignSettings)
    mcp: McpSettings = field(default_factory=McpSettings)

    @classmethod
    def parse(cls, data: Mapping[str, Mapping[str, Any]]) -> Settings:
        """The typed form of merged, checked file values (a missing one keeps its default)."""
        made = {}
        for section, kind in SECTIONS.items():
            values = data.get(section, {})
            made[section] = kind(**{s.key: convert(s.default, values[s.key], s.typed)
                                    for s in BY_SECTION[section] if s.key in values})
        return cls(**made)


# section name -> its dataclass, in the order of the file
SECTIONS: dict[str, type] = dict(get_type_hints(Settings).items())


@dataclass(frozen=True)
class Declared:
    """One setting as the generators and the loader see it."""

    section: str
    key: str
    default: Any
    doc: str
    check: Check | None
    typed: type | None = None

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def variable(self) -> str | None:
        """The environment variable that overrides it (tables have none)."""
        if isinstance(self.default, Mapping):
            return None
        return setting_variable(self.section, self.key)

    @property
    def kind(self) -> str:
        for kind, python in (("boolean", bool), ("integer", int), ("number", float),
                             ("string", str), ("list", list)):
            if isinstance(self.default, python):
                return kind
        return "table"


def declared(section: str | None = None) -> Iterator[Declared]:
    """Every setting (of ``section``), in the order of the file."""
    for name, kind in SECTIONS.items():
        if section is not None and name != section:
            continue
        for f in fields(kind):
            yield Declared(name, f.name, f.metadata["default"], f.metadata["doc"],
                           f.metadata["check"], f.metadata["typed"])


SETTINGS: dict[str, Declared] = {s.name: s for s in declared()}
BY_SECTION: dict[str, tuple[Declared, ...]] = {name: tuple(declared(name)) for name in SECTIONS}
