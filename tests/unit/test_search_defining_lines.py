"""Which lines of a text define a name: assignments, keys, annotations and keywords count;
arguments, items, uses and comparisons do not."""

from __future__ import annotations

import pytest

from genesis_git.search.textlines import defining_lines, keyword_definition, line_definition

TEXT = "\n".join([
    "S = SingletonRegistry()",           # 0: top-level assignment
    "    S = []",                          # 1: a local
    "    f(S, 1,",                         # 2: an argument, no definition
    "    S = 1,",                          # 3: indented, ending with a comma: an item
    "class S(Basic):",                     # 4
    "def S(x):",                           # 5
    "x = S.Zero",                          # 6: a use
    '    "S": 1,',                         # 7: a key
    "S: int = 3",                          # 8: annotated
    "a = b = S = 2",                       # 9: a chain
    "class",                               # 10: a keyword alone, then a blank line
    "",                                    # 11
    "S(1)",                                # 12: the class of line 10 (a keyword, white space)
    "export const S = 1",                  # 13: a keyword of other languages
    "if S == 1:",                          # 14: a comparison
    "S",                                   # 15: the name alone
    "x = 1",                               # 16
    "class",                               # 17: a keyword whose name is not next
    "x = S",                               # 18: a use after it
])


@pytest.mark.parametrize("python", [True, False])
def test_the_lines_that_define_a_name(python: bool) -> None:
    plain = defining_lines(TEXT, line_definition("S"), keyword_definition("S", python))
    assert {0, 1, 4, 5, 7, 8, 9, 12}.issubset(plain)
    assert (13 in plain) is not python
    assert not {2, 3, 6, 11, 14, 15, 16, 17, 18} & set(plain)


def test_a_text_that_only_uses_the_name_has_no_definition() -> None:
    text = "x = S.Zero\ny = S.One\nf(S)\n"
    assert defining_lines(text, line_definition("S"), keyword_definition("S")) == []


def test_assignments_are_tried_on_the_lines_that_may_hold_them_with_the_same_answer() -> None:
    """The assignment pattern runs only on the lines where the name is followed by ``=``,
    ``:`` or a quote and a ``:``; what it finds is what a pass over the whole text finds."""
    lines = ["S = 1", "  S == 2", "S:int", "S : int = 3", "'S' :", "S:: x", "f(S=1)",
             "x = S = y", "S", "  S = [1,", "S S = 4", "a.S = 5", "S=", "x == S", "'S'", ""]
    text = "\n".join(lines * 3 + ["S = last"])  # the last line has no newline after it
    assignment = line_definition("S")
    whole = sorted({text.count("\n", 0, m.end() - 1)  # the plain pass over all the text
                    for m in assignment.pattern.finditer(text)})
    assert defining_lines(text, assignment) == whole
    assert [i for i in whole if i < len(lines)] == [0, 2, 3, 4, 7, 12]
    assert whole[-1] == len(lines) * 3  # the last line


@pytest.mark.parametrize("python", [True, False])
def test_two_lines_git_gives_far_apart_are_no_neighbours(python: bool) -> None:
    """A keyword that ends one line git gives of a word and the word starting the next
    make a definition only when the two are neighbours in their file."""
    text = "# an x of type\nx(3)\ny = 'S' if x else class\nx = f(x)\n    return x\ndef x(a):"
    patterns = (line_definition("x"), keyword_definition("x", python))
    assert defining_lines(text, *patterns, numbers=[4, 90, 100, 101, 120, 130]) == [3, 5]
    assert defining_lines(text, *patterns, numbers=[4, 5, 100, 101, 120, 130]) == [1, 3, 5]
    assert defining_lines(text, *patterns) == [1, 3, 5]  # one text: its lines are neighbours
