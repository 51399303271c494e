"""Which remotes get the shared ledger, and how ``hooks status`` says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.config.settings import load_config
from genesis_git.render.hooks import ledger_line
from genesis_git.stories.ledger.sync import ledger_remotes


def config(remotes: str | None) -> object:
    env = {"GENESIS_LEDGER_SHARE": "true"}
    if remotes is not None:
        env["GENESIS_LEDGER_REMOTES"] = remotes
    return load_config(None, env)


@pytest.mark.parametrize(("named", "names", "expected"), [
    (None, ["origin", "public"], ["origin"]),
    (None, ["upstream"], ["upstream"]),
    (None, ["upstream", "public"], []),
    (None, [], []),
    ("backup", ["origin", "backup"], ["backup"]),
    ("backup, origin,backup", ["origin"], ["backup", "origin"]),
    ("gone", ["origin"], ["gone"]),
])
def test_the_ledger_remotes(named: str | None, names: list[str], expected: list[str]) -> None:
    assert ledger_remotes(Path("."), config(named), names) == expected


@pytest.mark.parametrize(("led", "line"), [
    ({"share": False, "remotes": ["origin"], "missing": [], "others": [], "error": None},
     "ledger: not shared, it stays in this clone (`genesis init --share` shares it)"),
    ({"share": True, "remotes": [], "missing": [], "others": ["a", "b"], "error": None},
     "ledger: shared, but no remote gets it (no origin; name one with "
     "`genesis init --share --remote NAME`)"),
    ({"share": True, "remotes": ["origin"], "missing": [], "others": [], "error": None},
     "ledger: pushed to origin"),
    ({"share": True, "remotes": ["origin", "x"], "missing": ["x"], "others": ["public"],
      "error": None},
     "ledger: pushed to origin, x (not a remote here); never to public"),
    ({"share": False, "remotes": [], "missing": [], "others": [], "error": "bad toml"},
     "ledger: unknown, the configuration cannot be read (bad toml)"),
])
def test_the_status_line(led: dict, line: str) -> None:
    assert ledger_line(led) == line
