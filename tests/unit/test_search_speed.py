"""The cheaper paths of a search give what the plain ones gave: an identifier's tiers read
from the lines that hold it, a pack decoded only as far as the chunks asked for."""

from __future__ import annotations

import random
import re

import pytest

from genesis_git.index.packs import decode_texts, decode_texts_at, encode_texts
from genesis_git.search.exact import DEFINITION, NAME, TOKEN, _text_tier
from genesis_git.search.textlines import keyword_definition, line_definition


def whole_text_tier(text: str, name: str) -> str:
    """The tier as the patterns give it on the whole text (what the tier always was)."""
    if line_definition(name).pattern.search(text) or keyword_definition(name).search(text):
        return DEFINITION
    return NAME if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) else TOKEN


CASES = [
    ("def url_for(x):\n    pass\n", "url_for", DEFINITION),
    ("def\n\n   \n\turl_for(x)", "url_for", DEFINITION),  # the keyword lines above the name
    ("class\n\u00a0\n\u2003\nProgressBar(", "ProgressBar", DEFINITION),  # Unicode blank lines
    ("class\nx\nProgressBar(", "ProgressBar", NAME),  # a line that is not blank between
    ("return url_for(x)", "url_for", NAME),
    ("return my_url_for(x)", "url_for", TOKEN),
    ("x = 1\nurl_for = make()\n", "url_for", DEFINITION),
    ("url_for == other", "url_for", NAME),
    ("    url_for = a,\n", "url_for", NAME),  # a keyword argument's line, in a call
    ('G = Head("G", [L],\n         sym=True)\n', "G", DEFINITION),  # at the top: it goes on
    ('CONFIG = {\n    "SESSION_COOKIE_PARTITIONED": False,\n}', "SESSION_COOKIE_PARTITIONED",
     DEFINITION),
    ("  Symbol: int\n", "Symbol", DEFINITION),
    ("  Symbol::new()\n", "Symbol", NAME),
    ("def Outer.Symbol\r\n  x\r\n", "Symbol", DEFINITION),
    ("x\r\n\r\nclass\r\n\r\nSymbol\r\n", "Symbol", DEFINITION),  # \r is white space too
    ("Symbol", "Symbol", NAME),
    ("", "Symbol", TOKEN),
    ("symbol SYMBOL", "Symbol", TOKEN),
    ("$Symbol Symbol$ Symbol_", "Symbol", TOKEN),
    ("export const $store = 1", "$store", DEFINITION),
    # after a keyword, the name is followed by code, not by prose
    ("    If the class has public attributes, they may be documented here.\n", "has", NAME),
    ("the type Symbol is a class\n", "Symbol", NAME),
    ("class\n\nSymbol of the module\n", "Symbol", NAME),
    ("class has:\n", "has", DEFINITION),
    ("struct Symbol {\n", "Symbol", DEFINITION),
    ("type Symbol struct {\n", "Symbol", DEFINITION),
    ("export class Symbol extends Node {", "Symbol", DEFINITION),
    ("fn Symbol<T>(x: T)", "Symbol", DEFINITION),
    ("def empty?\n  true\nend\n", "empty", DEFINITION),
    ("module Symbol\n", "Symbol", DEFINITION),
    ("def Symbol", "Symbol", DEFINITION),
]


@pytest.mark.parametrize(("text", "name", "tier"), CASES)
def test_an_identifier_s_tier_is_read_from_the_lines_that_hold_it(text: str, name: str,
                                                                   tier: str) -> None:
    assert _text_tier(text, name) == tier
    assert whole_text_tier(text, name) == tier


def test_in_python_only_def_class_and_type_define_and_code_follows_on_the_line() -> None:
    prose = ("    The coefficients should be of type Matrix\n", "    # Skip class Matrix\n",
             "    the function Matrix(x) is a function object Matrix:\n")
    code = ("class Matrix(Base):\n", "def Matrix(x):\n", "type Matrix = list[list[int]]\n",
            "    class Matrix:\n")
    for text in prose:
        assert _text_tier(text, "Matrix", python=True) == NAME, text
    for text in code:
        assert _text_tier(text, "Matrix", python=True) == DEFINITION, text
    assert _text_tier(prose[0], "Matrix") == DEFINITION  # elsewhere: C#'s class Matrix, then {
    assert _text_tier("class Matrix\n  def x; end\nend\n", "Matrix") == DEFINITION  # Ruby


PIECES = ["def", "class", "const", "fn", "let", "sub", "Symbol", "Symbol", "Outer.", "self.",
          "of", "extends", "{", "<", "?",
          "export", "=", "==", ":", "::", ",", "(", ")", '"', "'", "\n", "\n", "\n", " ", " ",
          "\t", "\r", "\u00a0", "\u2028", "\x1c", "$", "_", "x", "#"]


def test_windows_give_the_whole_text_s_tier_on_many_generated_texts() -> None:
    rnd = random.Random(7)
    seen = set()
    for _ in range(20_000):
        text = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 30)))
        for name in ("Symbol", "$"):
            tier = whole_text_tier(text, name)
            seen.add(tier)
            assert _text_tier(text, name) == tier, (text, name)
    assert seen == {DEFINITION, NAME, TOKEN}


def test_a_pack_is_decoded_only_for_the_chunks_asked_and_as_decode_texts_does() -> None:
    texts = [f"chunk {i} " + "é中\U0001f600" * i + "\ud800" * (i % 2) for i in range(300)]
    pack = encode_texts(texts)
    whole = decode_texts(pack)
    assert decode_texts_at(pack, [0, 299, 150, 150]) == {0: whole[0], 150: whole[150],
                                                         299: whole[299]}
    assert decode_texts_at(pack, [300, -1]) == {}  # chunks the pack does not have
    assert decode_texts_at(pack, []) == {}
    assert decode_texts_at(encode_texts([]), [0]) == {}
    big = [("x" * 50_000) + str(i) for i in range(40)]  # more than zlib gives in one step
    assert decode_texts_at(encode_texts(big), [39]) == {39: big[39]}


def test_the_text_memo_keeps_the_latest_texts_within_its_characters() -> None:
    from genesis_git.search.texts import TextMemo

    memo = TextMemo(limit=10)
    memo.put((1, 0), "abcd")
    memo.put((1, 1), "efgh")
    assert memo.get((1, 0)) == "abcd"  # now the latest used
    memo.put((2, 0), "ijk")  # 11 characters: the least recently used one goes
    assert memo.get((1, 1)) is None
    assert (memo.get((1, 0)), memo.get((2, 0))) == ("abcd", "ijk")
    memo.put((3, 0), "x" * 11)  # longer than the memo: never kept
    assert memo.get((3, 0)) is None and len(memo) == 2
