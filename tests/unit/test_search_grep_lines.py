"""The lines a pattern matches, as ``grep -n`` numbers them."""

from __future__ import annotations

import re

import pytest

from genesis_git.kernel.errors import UsageError
from genesis_git.search.grep import compile_pattern, file_matches

TEXT = "alpha\nbeta x\n\ngamma x x\r\ndef x_of(y):\n"


@pytest.mark.parametrize(("pattern", "lines"), [
    ("x", [2, 4, 5]), ("^", [1, 2, 3, 4, 5]), ("x*", [1, 2, 3, 4, 5]), ("a$", [1]),
    ("^$", [3]), (r"x\b", [2, 4])])
def test_each_matching_line_once_and_nothing_after_the_last_newline(
        pattern: str, lines: list[int]) -> None:
    found = file_matches("p", TEXT, re.compile(pattern, re.MULTILINE))
    assert [m.line for m in found] == lines


def test_columns_text_and_definitions() -> None:
    found = file_matches("p", TEXT, compile_pattern("x", regex=False))
    assert [(m.line, m.column, m.text, m.definition) for m in found] == [
        (2, 6, "beta x", False), (4, 7, "gamma x x", False), (5, 5, "def x_of(y):", True)]
    words = file_matches("p", TEXT, compile_pattern("x", regex=False, word=True))
    assert [m.line for m in words] == [2, 4]
    dollar = file_matches("p", "x = $foo\n$foobar\nfoo\n",
                          compile_pattern("$foo", regex=False, word=True))
    assert [m.line for m in dollar] == [1]
    dotted = file_matches("p", "a.b\naxb\n", compile_pattern("a.b", regex=False))
    assert [m.line for m in dotted] == [1]


def test_an_empty_or_broken_pattern_is_a_usage_error() -> None:
    for pattern, regex in (("", False), ("(", True)):
        with pytest.raises(UsageError):
            compile_pattern(pattern, regex=regex)


@pytest.mark.parametrize("name", ["S", "has", "$http", "a.b", "x+y", "_", "é"])
def test_a_whole_word_is_found_where_it_stands_alone_in_any_text(name: str) -> None:
    # the literal comes first in the pattern (fast); where it matches must not change
    text = ("S S1 aS _S $S S$ éS Sé (S)\nhas hash _has has_ (has) x.has() has\n"
            "$http a$http $https\na.b xa.b a.bc (a.b)\nx+y ax+y x+yb\n_ a_ _b (_)\né aé (é)\n")
    plain = re.compile(rf"(?<!\w)(?:{re.escape(name)})(?!\w)", re.MULTILINE)
    fast = compile_pattern(name, regex=False, word=True)
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert fast.search(text) is not None
