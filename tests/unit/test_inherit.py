"""A class's ancestors from the working tree: what ``Flask.route`` or ``Matrix.det`` means."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from genesis_git.search.inherit import (
    Lineage,
    alias_targets,
    bases,
    linearize,
    type_checking_only,
)
from genesis_git.store.migrations import migrate


@pytest.mark.parametrize(("header", "expected"), [
    ("class A(B, mod.C):", ["B", "C"]),
    ("class A(Generic[T], B, metaclass=Meta):", ["Generic", "B"]),
    ("class A[T](Base[T]):", ["Base"]),
    ("class A(\n    B,\n    C,  # why\n):\n", ["B", "C"]),
    ("class A:", []),
    ("class A(): pass", []),
    ("    class Inner(Outer.Base):", ["Base"]),
    ("export default class View extends React.Component<Props> {", ["Component"]),
    ("public class Repo extends Base<T> implements Closeable, Iterable<T> {",
     ["Base", "Closeable", "Iterable"]),
    ("class Post < ApplicationRecord", ["ApplicationRecord"]),
    ("class << self", []),
    ("class Widget : public QObject, private Base {", ["QObject", "Base"]),
    ("data class Point(val x: Int) : Shape", ["Int"]),  # Kotlin's constructor reads as Python
    ("classy = 3", []),
])
def test_bases_of_a_class_statement(header: str, expected: list[str]) -> None:
    assert bases(header) == expected


def test_an_alias_and_what_is_not_one() -> None:
    assert alias_targets("Matrix = MutableMatrix = MutableDenseMatrix") == (
        "Matrix", ["MutableMatrix", "MutableDenseMatrix"])
    assert alias_targets("Row: TypeAlias = models.Record  # kept") == ("Row", ["Record"])
    for line in ("Matrix = make()", "    Matrix = Other", "x = 3", "A = B + C", "A == B"):
        assert alias_targets(line) is None, line


def test_linearize_is_pythons_method_order() -> None:
    class Root: ...
    class X(Root): ...
    class Y(Root): ...
    class A(X, Y): ...
    class B(Y, X): ...
    class Z(A): ...

    parents = {"Z": ["A"], "A": ["X", "Y"], "X": ["Root"], "Y": ["Root"]}
    assert linearize("Z", parents) == [c.__name__ for c in Z.__mro__[:-1]]
    assert linearize("B", {"B": ["Y", "X"], "X": ["Root"], "Y": ["Root"]}) == [
        c.__name__ for c in B.__mro__[:-1]]
    assert linearize("C", {"C": ["A", "B"], "A": ["X", "Y"], "B": ["Y", "X"]}) is None
    assert linearize("P", {"P": ["Q"], "Q": ["P"]}) is None


def test_a_declaration_for_type_checkers_only() -> None:
    lines = ["from typing import TYPE_CHECKING", "", "class Expr(Basic):",
             "    if TYPE_CHECKING:", "", "        # for the checkers", "        @overload",
             "        def evalf(self) -> Expr: ...", "    else:", "        def subs(self): ...",
             "    if typing.TYPE_CHECKING:", "        def simplify(self): ...",
             "    def n(self):", "        if TYPE_CHECKING:", "            pass",
             "        return 1"]
    assert [i for i in range(len(lines)) if type_checking_only(lines, i)] == [5, 6, 7, 11, 14]
    assert not type_checking_only(lines, 99) and not type_checking_only(lines, -1)


def test_a_lower_case_name_no_class_is_called_costs_no_git_grep() -> None:
    conn = sqlite3.connect(":memory:")
    migrate(conn)  # the store's tables, empty: no class chunk at all
    lineage = Lineage(Path("/no/such/tree"), conn)  # a unit test starts no process: none is
    assert [lineage.ancestors(n) for n in ("os", "sympy", "self")] == [[], [], []]
    with pytest.raises(AssertionError, match="starts no process"):  # a class name would grep
        lineage.ancestors("Matrix")
