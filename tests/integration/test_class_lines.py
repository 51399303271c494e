"""A class walk keeps the lines it read per file version in the store: a later command
asks git nothing while no file changed, and only for the files that did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from genesis_git.app.facade import Genesis
from genesis_git.cli.main import app
from genesis_git.search import classlines

from helpers import make_repo, write

TREE = {
    "pkg/base.py": ("class Store:\n    def save(self):\n        pass\n\n\n"
                    "class Archive:\n    def save(self):\n        pass\n"),
    "pkg/carts.py": "from pkg.base import Store\n\n\nclass Carts(Store):\n    pass\n\n"
                    "Basket = Carts\n",
    "tests/test_carts.py": "class Store(Carts):  # a test's own, the reverse way\n    pass\n",
}


def lookup(root: Path, name: str) -> list[tuple[str, list[str]]]:
    with Genesis(root) as g:  # a command of its own
        found = g.symbols.lookup(name)["definitions"]
    return [(d["name"], d.get("via", [])) for d in found]


def greps(trace: Path) -> list[str]:
    lines = trace.read_text().splitlines() if trace.exists() else []
    return [line.split("built-in: ", 1)[1] for line in lines if "built-in: git grep" in line]


def kept_files(home: Path) -> list[Path]:
    return sorted((home / "search").glob("*.classes"))


def test_a_later_command_reads_git_only_for_the_files_that_changed(
        tmp_path: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", TREE)
    assert lookup(root, "Basket.save") == [("Store.save", ["Basket", "Store"])]
    [kept] = kept_files(genesis_env)
    assert set(json.loads(kept.read_text())["files"]) == {"pkg/base.py", "pkg/carts.py"}
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    assert lookup(root, "Basket.save") == [("Store.save", ["Basket", "Store"])]
    assert greps(trace) == []  # nothing changed: no git grep at all
    write(root, "pkg/carts.py", "from pkg.base import Archive\n\n\nclass Carts(Archive):\n"
                                "    pass\n\nBasket = Carts\n")
    write(root, "pkg/new.py", "from pkg.carts import Carts\n\n\nclass Crate(Carts):\n    pass\n")
    trace.unlink()
    assert lookup(root, "Crate.save") == [("Archive.save", ["Crate", "Archive"])]
    [grep] = greps(trace)  # one, for the two files that changed
    assert grep.endswith("':(literal)pkg/carts.py' ':(literal)pkg/new.py'")


def test_a_git_without_the_patterns_walks_as_before(
        tmp_path: Path, genesis_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", TREE)
    monkeypatch.setattr(classlines, "PATTERNS", ("(",))  # git refuses it, as one without -P
    assert lookup(root, "Basket.save") == [("Store.save", ["Basket", "Store"])]
    assert kept_files(genesis_env) == []


def test_what_was_kept_and_cannot_be_read_is_read_again(tmp_path: Path,
                                                        genesis_env: Path) -> None:
    root = make_repo(tmp_path / "repo", TREE)
    assert lookup(root, "Carts.save") == [("Store.save", ["Carts", "Store"])]
    [kept] = kept_files(genesis_env)
    for broken in ("{not json", json.dumps({"format": 99, "files": {}}), "[]",
                   json.dumps({"format": classlines.FORMAT, "files": {"pkg/base.py": 5}}),
                   json.dumps({"format": classlines.FORMAT, "files": []})):
        kept.write_text(broken)
        assert lookup(root, "Carts.save") == [("Store.save", ["Carts", "Store"])]
        assert json.loads(kept.read_text())["format"] == classlines.FORMAT


def test_gc_removes_what_an_ended_session_kept(tmp_path: Path, genesis_env: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", TREE)
    monkeypatch.chdir(root)
    runner = CliRunner()
    assert runner.invoke(app, ["symbols", "Carts.save"]).exit_code == 0
    assert len(kept_files(genesis_env)) == 1
    assert runner.invoke(app, ["cache", "gc"]).exit_code == 0  # the session is active
    assert len(kept_files(genesis_env)) == 1
    assert runner.invoke(app, ["session", "end"]).exit_code == 0
    assert runner.invoke(app, ["cache", "gc"]).exit_code == 0
    assert kept_files(genesis_env) == []
