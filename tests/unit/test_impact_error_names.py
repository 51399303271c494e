"""Impact on a bug report: a changelog among the documents (impact.anchors).

Each ranking test runs the same corpus twice, with the signal and with it switched off
(``RankOptions.ablate``), so that it fails without the signal."""

from __future__ import annotations

from test_impact_graph import corpus_of

from genesis_git.impact.analyse import analyze
from genesis_git.impact.anchors import file_kind, prior_factor
from genesis_git.impact.combine import RankOptions, rank


def _top(files: dict[str, str], text: str, **kw: object) -> list[str]:
    return [f.path for f in rank(corpus_of(files), analyze(text), RankOptions(**kw)).files]  # type: ignore[arg-type]


CHANGES_TREE = {
    "CHANGES": ("Release 7.2\n\nBugs fixed\n* #11015: the total of an empty cart crashes\n"
                "* #11016: an empty cart total is wrong\n* the cart total of a cart\n"),
    "src/shop/cart.py": "class Cart:\n    def total(self):\n        return sum(self.items)\n",
}
BUG = "Empty cart total crashes\n\n```\n>>> Cart().total()\nZeroDivisionError\n```\n"


def test_a_changelog_without_an_extension_is_a_document_in_a_bug_report() -> None:
    assert file_kind("CHANGES", ["changelog"]) == "doc"
    assert file_kind("CHANGES") == "source"  # by its path alone, a file with no extension
    q = analyze(BUG)
    assert prior_factor("CHANGES", q, ["changelog"]) < 1.0
    assert _top(CHANGES_TREE, BUG)[0] == "src/shop/cart.py"
    assert _top(CHANGES_TREE, BUG, ablate=frozenset({"prior"}))[0] == "CHANGES"
