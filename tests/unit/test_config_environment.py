"""Every ``GENESIS_*`` variable is declared once (kernel/environment.py for the process, the settings'
declaration for the rest), and reads as that declaration says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from genesis_git.config.schema import declared
from genesis_git.kernel import storepath
from genesis_git.kernel.environment import (
    ENV_BUSY_TIMEOUT_MS,
    ENV_DEBUG,
    ENV_HOME,
    ENV_HOOKS,
    ENV_HOOKS_INDEX,
    ENV_PREPUSH_TIMEOUT,
    ENV_VARIABLES,
    parse_bool,
    setting_variable,
)
from genesis_git.kernel.storepath import DEFAULT_BUSY_MS

PACKAGE = Path(storepath.__file__).resolve().parents[1]
# GENESIS_ words in the code that are not variables genesis reads: the hook shim's own shell
# variables, Typer's completion switch, and the placeholder of the docs
NOT_READ = {"GENESIS_PYTHON", "GENESIS_LEGACY_SH", "GENESIS_COMPLETE", "GENESIS_SECTION_KEY"}
# reads of os.environ that name a GENESIS_ variable in place instead of its declaration: none
AD_HOC: set[str] = set()


def _sources() -> dict[str, str]:
    return {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
            for p in PACKAGE.rglob("*.py")}


def test_every_variable_named_in_the_code_is_declared() -> None:
    known = {v.name for v in ENV_VARIABLES} | {s.variable for s in declared() if s.variable}
    named = {m for text in _sources().values() for m in re.findall(r"GENESIS_[A-Z_]*[A-Z]", text)}
    assert named - known - NOT_READ == set()


def test_variables_are_read_through_their_declaration() -> None:
    found = {f"{rel}: {name}" for rel, text in _sources().items()
             for name in re.findall(r"environ(?:\.get\(|\[)\s*[\"'](GENESIS_\w+)", text)}
    assert found <= AD_HOC


def test_names_are_unique_and_documented() -> None:
    names = [v.name for v in ENV_VARIABLES] + [s.variable for s in declared() if s.variable]
    assert len(names) == len(set(names))
    assert all(v.doc.strip() and v.name.startswith("GENESIS_") for v in ENV_VARIABLES)
    assert setting_variable("story", "require_story") == "GENESIS_STORY_REQUIRE_STORY"


def test_the_home(tmp_path: Path) -> None:
    assert ENV_HOME.raw({}) is None
    assert storepath.store_dir("/r/.git") != "/r/.git/genesis"  # the suite sets GENESIS_HOME
    assert ENV_HOME.raw({"GENESIS_HOME": str(tmp_path)}) == str(tmp_path)


def test_the_busy_timeout_falls_back_on_text_that_is_no_number() -> None:
    assert ENV_BUSY_TIMEOUT_MS.number({}) == DEFAULT_BUSY_MS
    assert ENV_BUSY_TIMEOUT_MS.number({"GENESIS_BUSY_TIMEOUT_MS": "250"}) == 250
    assert ENV_BUSY_TIMEOUT_MS.number({"GENESIS_BUSY_TIMEOUT_MS": "soon"}) == DEFAULT_BUSY_MS
    assert ENV_BUSY_TIMEOUT_MS.number({"GENESIS_BUSY_TIMEOUT_MS": "2.5"}) == DEFAULT_BUSY_MS


def test_busy_timeout_ms_reads_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENESIS_BUSY_TIMEOUT_MS", "1234")
    assert storepath.busy_timeout_ms() == 1234
    monkeypatch.setenv("GENESIS_BUSY_TIMEOUT_MS", "x")
    assert storepath.busy_timeout_ms() == DEFAULT_BUSY_MS


def test_the_prepush_timeout() -> None:
    assert ENV_PREPUSH_TIMEOUT.number({}) == 10.0
    assert ENV_PREPUSH_TIMEOUT.number({"GENESIS_PREPUSH_TIMEOUT": "0.5"}) == 0.5
    assert ENV_PREPUSH_TIMEOUT.number({"GENESIS_PREPUSH_TIMEOUT": "later"}) == 10.0


def test_the_hooks_index_mode() -> None:
    assert ENV_HOOKS_INDEX.choice({}) == "background"
    assert ENV_HOOKS_INDEX.choice({"GENESIS_HOOKS_INDEX": "inline"}) == "inline"
    assert ENV_HOOKS_INDEX.choice({"GENESIS_HOOKS_INDEX": "off"}) == "off"
    assert ENV_HOOKS_INDEX.choice({"GENESIS_HOOKS_INDEX": "OFF"}) == "background"


@pytest.mark.parametrize(("text", "on"), [(None, True), ("1", True), ("", True), ("yes", True),
                                          ("0", False)])
def test_only_zero_turns_the_hooks_off(text: str | None, on: bool) -> None:
    assert ENV_HOOKS.on({} if text is None else {"GENESIS_HOOKS": text}) is on


@pytest.mark.parametrize(("text", "on"), [(None, False), ("", False), ("0", False), ("1", True),
                                          ("no", True)])
def test_debug_is_on_when_set_and_not_zero(text: str | None, on: bool) -> None:
    assert ENV_DEBUG.on({} if text is None else {"GENESIS_DEBUG": text}) is on


@pytest.mark.parametrize(("text", "value"), [("1", True), (" TRUE ", True), ("on", True),
                                             ("0", False), ("off", False), ("", False),
                                             ("maybe", None)])
def test_boolean_words(text: str, value: bool | None) -> None:
    assert parse_bool(text) is value
