"""The lines that define a short name are found the same way with and without looking first
for the lines where code may follow it."""

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
    "class",                               # 10: a keyword alone, the name on the next line
    "S(1)",                                # 11: a call, not the class of line 10
    "export const S = 1",                  # 12
    "if S == 1:",                          # 13: a comparison
    "S",                                   # 14: the name alone
])


@pytest.mark.parametrize("python", [True, False])
def test_the_same_lines_with_and_without_the_first_look(python: bool) -> None:
    patterns = (line_definition("S"), keyword_definition("S", python))
    plain = defining_lines(TEXT, *patterns)
    assert plain == defining_lines(TEXT, *patterns, name="S")
    assert {0, 1, 4, 5, 7, 8, 9}.issubset(plain)
    assert not {2, 3, 6, 11, 13} & set(plain)


def test_a_text_where_code_never_follows_the_name_has_no_definition() -> None:
    text = "x = S.Zero\ny = S.One\n"
    assert defining_lines(text, line_definition("S"), keyword_definition("S"), name="S") == []
