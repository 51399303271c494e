"""A definition the chunker cut into pieces is one definition in ``genesis symbols``."""

from __future__ import annotations

import pytest

from genesis_git.index.chunk import chunk_text
from genesis_git.index.facts import BlobFacts, compute
from genesis_git.search.symbols import SymbolIndex, definitions_of


def _definitions(text: str) -> list[tuple[str, str, int, int]]:
    chunks = chunk_text("pkg/mod.py", text)
    facts = compute([(c.start_line, c.end_line, c.kind, c.symbol, c.text, c.section)
                     for c in chunks])
    return [(d.kind, d.name, d.line, d.end_line) for d in definitions_of("pkg/mod.py", facts)]


def _method(name: str, body_lines: int) -> list[str]:
    return [f"    def {name}(self):", *[f"        x{i} = {i}" for i in range(body_lines)],
            "        return x0", ""]


def test_a_long_method_is_one_definition_from_its_first_line_to_its_last() -> None:
    lines = ["class Big:", '    """A class longer than a chunk."""', "", *_method("small", 3),
             *_method("flatten", 200), "    LIMIT = 3", "", *_method("tail", 2)]
    text = "\n".join(lines) + "\n"
    found = _definitions(text)
    flatten = [d for d in found if d[1] == "Big.flatten"]
    first = lines.index("    def flatten(self):") + 1
    assert flatten == [("method", "Big.flatten", first, first + 201)]  # three chunks, one
    assert [d[1] for d in found] == ["Big", "Big.small", "Big.flatten", "Big.tail"]
    big = found[0]
    assert big == ("class", "Big", 1, len(lines) - 1)  # the head, its methods and pieces
    assert lines[big[3] - 1] == "        return x0"


def test_overloads_one_under_the_other_stay_apart() -> None:
    text = ("from typing import overload\n\n\nclass A:\n"
            + "".join(f"    @overload\n    def f(self, x: {t}) -> {t}: ...\n"
                      for t in ("int", "str"))
            + "    def f(self, x):\n        return x\n\n"
            + "\n".join(_method("long", 90)))  # a long class: each method is a chunk
    found = [d for d in _definitions(text) if d[1] == "A.f"]
    assert [(d[2], d[3]) for d in found] == [(5, 6), (7, 8), (9, 10)]


def test_a_long_function_then_a_new_one_of_the_same_name_after_a_gap() -> None:
    body = [f"    y{i} = {i}" for i in range(120)]
    text = "\n".join(["def run():", *body, "", "", "def run():", "    return 1", ""])
    found = _definitions(text)
    assert found == [("function", "run", 1, 121), ("function", "run", 124, 125)]


def _facts(path: str, text: str) -> BlobFacts:
    chunks = chunk_text(path, text)
    stored = compute([(c.start_line, c.end_line, c.kind, c.symbol, c.text, c.section)
                      for c in chunks]).dumps()
    return BlobFacts.loads(stored)  # as the store gives them: the names not decoded yet


def test_the_index_reads_only_the_files_that_may_define_the_name() -> None:
    files = {
        "pkg/cart.py": _facts("pkg/cart.py", "class Cart:\n    def total(self):\n"
                                             "        return 0\n"),
        "pkg/other.py": BlobFacts(raw="{not facts at all"),  # read, it would raise
        # imports Cart and defines Cartography only: not read for Cart either
        "pkg/maps.py": BlobFacts(raw='{"m":[],"p":[["pkg.cart",["Cart"]]],"j":[],'
                                     '"s":[[1,3,"class","Cartography",null]] and no end'),
        "pkg/nothing.py": None,
    }
    index = SymbolIndex(files)
    assert [(d.name, d.line) for d in index.define("Cart.total")] == [("Cart.total", 2)]
    assert [d.name for d in index.define("TOTAL")] == ["Cart.total"]  # any case, when no other
    assert index.define("missing") == []
    assert index.outline("pkg/nothing.py") == []
    assert index.outline("pkg/absent.py") is None
    assert [d.name for d in index.define("Cart")] == ["Cart"]
    assert index.paths == {"pkg/cart.py", "pkg/other.py", "pkg/maps.py", "pkg/nothing.py"}
    for never_decoded in ("pkg/other.py", "pkg/maps.py"):  # by the lookups above
        with pytest.raises(ValueError):
            index.outline(never_decoded)


def test_what_facts_may_hold_without_decoding_them() -> None:
    facts = _facts("pkg/cart.py", "from pkg.things import Thing\n\n\nclass Cart:\n"
                                  "    def total(self):\n        return Thing()\n")
    assert facts.may_hold("Cart") and facts.may_hold("total")  # a name's last part is asked
    assert facts.may_hold("cart", fold=True) and facts.may_hold("TOTAL", fold=True)
    assert not facts.may_hold("cart") and not facts.may_hold("TOTAL")  # as written
    assert not facts.may_hold("Thing")  # imported, not defined
    assert not facts.may_hold("tot") and not facts.may_hold("art")  # parts of names
    assert facts.may_hold("Ça") and facts.may_hold('a"b') and facts.may_hold("a\tb")  # unsure
    table = _facts("db/schema.sql", "CREATE TABLE shop.orders (\n  id INTEGER\n);\n")
    assert [t[0] for t in table.tables] == ["orders"]
    assert table.may_hold("orders") and table.may_hold("ORDERS", fold=True)
    assert not table.may_hold("order")
