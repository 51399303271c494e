"""A class's ancestors, read from a real working tree by git: tests and docs left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.search import inherit
from genesis_git.search.inherit import ancestors

from helpers import make_repo, write


def test_ancestors_from_the_working_tree(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "pkg/base.py": "class Scaffold:\n    def route(self):\n        pass\n",
        "pkg/app.py": ("from pkg.base import Scaffold\n\n\nclass App(\n    Scaffold,\n"
                       "):\n    pass\n\n\nclass Flask(App, metaclass=Meta):\n    pass\n\n"
                       "Application = Flask\n"),
        "tests/test_app.py": "class Scaffold(Flask):  # a test's own, the reverse way\n"
                             "    pass\nApp = Application\n",
        "docs/api.md": "    class Flask(Documented):\n",
    })
    assert ancestors(root, "Application") == ["Flask", "App", "Scaffold"]
    assert ancestors(root, "Scaffold") == []
    assert ancestors(root, "Nothing") == []
    assert ancestors(root, "not a name") == []
    write(root, "pkg/extra.py", "from pkg.app import Flask\n\n\nclass Quart(Flask):\n    pass\n")
    assert ancestors(root, "Quart") == ["Flask", "App", "Scaffold"]  # untracked counts
    write(root, "pkg/loop.py", "class Scaffold(Application):\n    pass\n")  # a cycle
    assert ancestors(root, "Flask") == ["App", "Scaffold", "Application"]  # nearest first


def test_a_long_lived_caller_sees_a_base_change(tmp_path: Path) -> None:
    from genesis_git.app.facade import Genesis

    root = make_repo(tmp_path / "repo", {
        "pkg/base.py": ("class Store:\n    def save(self):\n        pass\n\n\n"
                        "class Archive:\n    def save(self):\n        pass\n"),
        "pkg/carts.py": "from pkg.base import Store\n\n\nclass Carts(Store):\n    pass\n",
    })
    with Genesis(root) as g:  # as the MCP server keeps it: one object, calls after calls
        first = g.symbols.lookup("Carts.save")["definitions"]
        write(root, "pkg/carts.py", "from pkg.base import Archive\n\n\n"
                                    "class Carts(Archive):\n    pass\n")
        then = g.symbols.lookup("Carts.save")["definitions"]
    assert [(d["name"], d["via"]) for d in first] == [("Store.save", ["Carts", "Store"])]
    assert [(d["name"], d["via"]) for d in then] == [("Archive.save", ["Carts", "Archive"])]


def test_no_ancestors_where_git_gives_no_answer(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/a.py": "class A(B):\n    pass\n\n\nclass B:\n"
                                                     "    pass\n"})
    assert ancestors(root, "A") == ["B"]
    assert ancestors(tmp_path, "A") == []  # not a repository: git grep fails
    monkeypatch.setattr(inherit, "GREP_SECONDS", 1e-9)  # git is killed: no answer in time
    assert ancestors(root, "A") == []


def test_a_declaration_for_type_checkers_gives_way_to_the_method_that_runs(
        tmp_path: Path) -> None:
    from genesis_git.app.facade import Genesis
    from genesis_git.index.session import ensure_session, open_context
    from genesis_git.search import SearchOptions, search

    root = make_repo(tmp_path / "repo", {
        "pkg/base.py": ("class Base:\n    def evalf(self, n=15):\n        return n\n\n\n"
                        "class Noted:\n    def evalf(self):\n        return 0\n"),
        "pkg/expr.py": ("from typing import TYPE_CHECKING\n\nfrom pkg.base import Base\n\n\n"
                        "class Expr(Base):\n    if TYPE_CHECKING:\n"
                        "        def evalf(self, n: int = 15) -> 'Expr': ...\n\n"
                        "    def doit(self):\n        def evalf(x):  # nested, no method\n"
                        "            return x\n        return self\n\n\n"
                        "class Leaf(Expr):\n    pass\n"),
        "pkg/stub.py": ("from typing import TYPE_CHECKING\n\n\nclass Typed:\n"
                        "    if TYPE_CHECKING:\n        def size(self) -> int: ...\n\n\n"
                        "class Sized(Typed):\n    pass\n"),
    })
    with Genesis(root) as g:
        leaf = g.symbols.lookup("Leaf.evalf")["definitions"]
        own = g.symbols.lookup("Expr.evalf")["definitions"]  # what the class itself declares
        only = g.symbols.lookup("Sized.size")["definitions"]  # no class has more: the declaration
    assert [(d["location"], d["via"]) for d in leaf] == [("pkg/base.py:2", ["Leaf", "Base"])]
    assert [d["location"] for d in own] == ["pkg/expr.py:8"]
    assert [(d["location"], d["via"]) for d in only] == [("pkg/stub.py:6", ["Sized", "Typed"])]
    ctx = open_context(root)
    hits = search(ctx, ensure_session(ctx), "Leaf.evalf", SearchOptions(k=2)).hits
    assert (hits[0].path, hits[0].symbol) == ("pkg/base.py", "Base"), hits


def test_a_lower_case_name_is_a_class_or_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {
        "pkg/funcs.py": ("class Function:\n    def doit(self):\n        pass\n\n\n"
                         "class cos(Function):\n    pass\n\n\nsine = cos\nSine = cos\n"),
    })
    assert ancestors(root, "cos") == ["Function"]  # SymPy writes its functions' classes so
    assert ancestors(root, "Sine") == ["cos", "Function"]
    assert ancestors(root, "sine") == []  # a module or an object: not looked for as an alias


def test_a_lineage_reads_the_class_statements_once(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", {
        "pkg/a.py": ("class Base:\n    pass\n\n\nclass Left(Base):\n    pass\n\n\n"
                     "class Right(Base):\n    pass\n\n\nShort = Right\n"),
    })
    trace = tmp_path / "git-trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))  # git itself writes down each command it runs

    def greps() -> int:
        return trace.read_text().count("built-in: git grep") if trace.exists() else 0

    lineage = inherit.Lineage(root)
    assert lineage.ancestors("Left") == ["Base"]
    assert greps() == 1
    assert lineage.ancestors("Right") == ["Base"]  # its class statement was read already
    assert lineage.ancestors("Left") == ["Base"]
    assert greps() == 1
    assert lineage.ancestors("Short") == ["Right", "Base"]  # an alias: one more, for it alone
    assert greps() == 2
