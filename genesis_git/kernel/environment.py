"""Every ``GENESIS_*`` environment variable that is not a setting, declared once.

A setting's own variable (``GENESIS_<SECTION>_<KEY>``) comes from the settings'
declaration (:mod:`genesis_git.config.schema`) through :func:`setting_variable`; the
variables here steer the process itself.  ``docs/reference/environment.md`` is generated
from :data:`ENV_VARIABLES` and the settings.  Standard library only: the hooks read it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off", "")


class Variable:
    """One environment variable: its name, kind, default (as text) and meaning.

    ``kind`` is ``path``, ``int``, ``float``, ``choice`` (one of ``choices``, else the
    default), ``switch`` (off when the text is one of ``choices``) or ``text``.
    """

    __slots__ = ("name", "kind", "default", "doc", "choices")

    def __init__(self, name: str, kind: str, default: str, doc: str,
                 choices: tuple[str, ...] = ()) -> None:
        self.name, self.kind, self.default, self.doc = name, kind, default, doc
        self.choices = choices

    def __repr__(self) -> str:
        return f"Variable({self.name!r})"

    def raw(self, env: Mapping[str, str] | None = None) -> str | None:
        """The text as set, or ``None`` when unset."""
        return (os.environ if env is None else env).get(self.name)

    def text(self, env: Mapping[str, str] | None = None) -> str:
        """The text as set, else the default."""
        found = self.raw(env)
        return self.default if found is None else found

    def number(self, env: Mapping[str, str] | None = None) -> float:
        """An ``int`` or ``float`` variable's value; text that is no number reads as the default."""
        parse = int if self.kind == "int" else float
        try:
            return parse(self.text(env))
        except ValueError:
            return parse(self.default)

    def choice(self, env: Mapping[str, str] | None = None) -> str:
        """A ``choice`` variable's value; any other text reads as the default."""
        found = self.text(env)
        return found if found in self.choices else self.default

    def on(self, env: Mapping[str, str] | None = None) -> bool:
        """A ``switch``: on unless its text is one of the words that turn it off."""
        return self.text(env) not in self.choices


ENV_HOME = Variable(
    "GENESIS_HOME", "path", "",
    "folder of the store (genesis.db, its log and saved search bases); "
    "default: `<git common dir>/genesis`")
ENV_BUSY_TIMEOUT_MS = Variable(
    "GENESIS_BUSY_TIMEOUT_MS", "int", "10000",
    "milliseconds a command waits for another process's write lock on the store")
ENV_HOOKS = Variable(
    "GENESIS_HOOKS", "switch", "1",
    "`0`: the installed git hooks do nothing (the commit goes on untouched)", ("0",))
ENV_HOOKS_INDEX = Variable(
    "GENESIS_HOOKS_INDEX", "choice", "background",
    "how post-commit indexes the commit's new blobs: `background` (a detached process), "
    "`inline` or `off`", ("background", "inline", "off"))
ENV_PREPUSH_TIMEOUT = Variable(
    "GENESIS_PREPUSH_TIMEOUT", "float", "10",
    "seconds the pre-push hook spends pushing the story ledger")
ENV_DEBUG = Variable(
    "GENESIS_DEBUG", "switch", "",
    "set (and not `0`): print the traceback of an unexpected error, as `--debug` does",
    ("", "0"))
ENV_PAGER = Variable(
    "GENESIS_PAGER", "text", "",
    "the pager for long output on a terminal, before `PAGER` and `less -FRX`; "
    "empty or `cat` turns paging off (as `--no-pager` does)")
ENV_TEST_PAUSE_AFTER_BATCH = Variable(
    "GENESIS_TEST_PAUSE_AFTER_BATCH", "path", "",
    "tests only: the indexer creates this file after its first batch and waits")
ENV_TEST_CLOCK_SKEW = Variable(
    "GENESIS_TEST_CLOCK_SKEW", "float", "0",
    "tests only: seconds added to the wall clock of the ledger's record writer "
    "(a clone whose clock is wrong)")

ENV_TEST_PROGRESS_DELAY = Variable(
    "GENESIS_TEST_PROGRESS_DELAY", "float", "1",
    "tests only: seconds of work before a progress bar appears on a terminal")

ENV_VARIABLES = (ENV_HOME, ENV_BUSY_TIMEOUT_MS, ENV_HOOKS, ENV_HOOKS_INDEX, ENV_PREPUSH_TIMEOUT,
                 ENV_DEBUG, ENV_PAGER, ENV_TEST_PAUSE_AFTER_BATCH, ENV_TEST_CLOCK_SKEW,
                 ENV_TEST_PROGRESS_DELAY)


def setting_variable(section: str, key: str) -> str:
    """The variable that overrides the setting ``section.key``: ``GENESIS_SECTION_KEY``."""
    return f"GENESIS_{section}_{key}".upper()



def parse_bool(text: str) -> bool | None:
    """A boolean setting's text (``1``/``0``, ``true``/``false``, …); ``None`` if neither."""
    low = text.strip().lower()
    if low in TRUE_WORDS:
        return True
    if low in FALSE_WORDS:
        return False
    return None
