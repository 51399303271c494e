"""Exact-name search, at its edges (real repository, real session index, real command line):
a definition put first although it made none of the cut lists (its chunk is long, and a
hundred short notes say the name more often) scores the fusion of the ranks it really had,
and ``--explain`` shows them; a dotted name shows the line that says it whole; an inherited
method in the one chunk of a short class far down the lists still leads."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, search
from genesis_git.search.explain import explain_lines

from helpers import genesis_cmd

FILES = {
    "src/shop/coupons.py": (
        "def apply_coupon(order, code):\n    \"\"\"Take a coupon's value off the order.\"\"\"\n"
        + "".join(f"    line_{i} = order.lines[{i}] * 0.{i % 9 + 1}\n" for i in range(40))
        + "    return order\n"),
    **{f"docs/apply_coupon_{i}.md": (f"# apply_coupon {i}\n\n"
                                     + f"Call `apply_coupon` for case {i}: apply_coupon.\n" * 3)
       for i in range(130)},
    "src/shop/notices.py": (
        "class Notice:\n    \"\"\"A message for the customer.\"\"\"\n\n"
        + "".join(f"    level_{i} = {i}\n" for i in range(40))
        + "\n    def show(self, out):\n        out.write(self.text)\n"),
    "src/shop/alerts.py": "from shop.notices import Notice\n\n\nclass Alert(Notice):\n    pass\n",
    "src/shop/banners.py": ("class Banner:\n    def show(self, alert):\n"
                            "        return f'alert: {alert}'\n"),  # a show among the first
    **{f"docs/alert_{i}.md": f"# Alert {i}\n\nTo show alert {i}, show the alert: show.\n"
       for i in range(150)},
    "src/shop/editor.py": (
        "import os\n\n\nclass Editor:\n    def edit(self, env):\n"
        "        environ: dict[str, str] | None = None\n        if env:\n"
        "            environ = os.environ.copy()\n            environ.update(env)\n"
        "        return environ\n"),
}

pytestmark = pytest.mark.shop(files=FILES)


def test_a_definition_beyond_the_lists_scores_its_real_ranks(shop: Path) -> None:
    ctx = open_context()
    res = search(ctx, ensure_session(ctx), "apply_coupon", SearchOptions(k=5))
    first = res.hits[0]
    assert (first.path, first.breakdown["exact"]) == ("src/shop/coupons.py", "definition")
    ranks = [first.breakdown[f"{n}_rank"] for n in ("lexical", "path", "vector")]
    assert all(r is not None and r > 100 for r in ranks[:2]), ranks  # beyond the pool of 100
    k = res.stats["rrf_k"]
    assert first.score == pytest.approx(sum(1 / (k + r) for r in ranks if r))
    assert 0 < first.score < min(h.score for h in res.hits[1:])
    lines = explain_lines(first.breakdown, k, res.mode)
    assert any(line.startswith("lexical") and f"(rank {ranks[0]})" in line for line in lines)
    assert any(line.startswith("rrf") for line in lines), lines


def test_lexical_mode_scores_it_by_its_lexical_score(shop: Path) -> None:
    ctx = open_context()
    res = search(ctx, ensure_session(ctx), "apply_coupon", SearchOptions(k=5, mode="lexical"))
    first = res.hits[0]
    assert first.path == "src/shop/coupons.py"
    assert first.score == pytest.approx(first.breakdown["bm25"] + sum(
        first.breakdown["boosts"].values()))
    assert first.score > 0


def test_a_dotted_name_shows_the_line_that_says_it_whole(shop: Path) -> None:
    out = subprocess.run([*genesis_cmd(), "search", "os.environ", "-k", "1"], cwd=shop,
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("src/shop/editor.py:"), out
    assert out.rstrip().endswith("environ = os.environ.copy()"), out  # not the local's line
    out = subprocess.run([*genesis_cmd(), "search", "Editor.edit", "-k", "1"], cwd=shop,
                         capture_output=True, text=True, check=True).stdout
    assert out.rstrip().endswith("def edit(self, env):"), out  # the name's own definition


def test_an_inherited_method_in_a_short_class_beyond_the_lists(shop: Path) -> None:
    # Notice is one chunk (a short class), far down: 150 notes say alert and show more often
    ctx = open_context()
    res = search(ctx, ensure_session(ctx), "Alert.show", SearchOptions(k=3))
    first = res.hits[0]
    assert (first.path, first.symbol, first.breakdown["exact"]) == (
        "src/shop/notices.py", "Notice", "definition"), res.hits
