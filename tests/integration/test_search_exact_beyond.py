"""A definition that exact-name search puts first although it made none of the cut lists
(its chunk is long, and a hundred short notes say the name more often): its score is the
fusion of the ranks it really had, and ``--explain`` shows them (real repository, real
session index)."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, search
from genesis_git.search.explain import explain_lines

FILES = {
    "src/shop/coupons.py": (
        "def apply_coupon(order, code):\n    \"\"\"Take a coupon's value off the order.\"\"\"\n"
        + "".join(f"    line_{i} = order.lines[{i}] * 0.{i % 9 + 1}\n" for i in range(40))
        + "    return order\n"),
    **{f"docs/apply_coupon_{i}.md": (f"# apply_coupon {i}\n\n"
                                     + f"Call `apply_coupon` for case {i}: apply_coupon.\n" * 3)
       for i in range(130)},
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
