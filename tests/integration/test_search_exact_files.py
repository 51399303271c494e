"""``search --files`` ranks files with impact's file evidence (a real repository with history)."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.search import group_by_file

from helpers import commit_files, make_repo

QUERY = "discount rounding in checkout"


def commit(root: Path, message: str, files: dict[str, str]) -> None:
    commit_files(root, message, dict(files))


@pytest.fixture
def shop_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "shop", {
        "src/pricing/engine.py": "def compute(cart):\n    return sum(x.amount for x in cart)\n",
        "src/shop/checkout.py": ("def checkout(cart):\n    \"\"\"Checkout: pay for the cart.\"\"\"\n"
                                 "    return cart\n"),
        "docs/discounts.md": "# Discounts\n\nA discount code lowers the price.\n",
        "src/shop/users.py": "def login(user):\n    return user\n",
    })
    for i in range(3):  # the pricing engine is what rounding fixes change
        commit(root, f"Fix discount rounding in checkout, case {i}",
               {"src/pricing/engine.py": ("def compute(cart):\n"
                                          f"    return sum(x.amount for x in cart) + {i}\n")})
    commit(root, "Add login", {"src/shop/users.py": "def login(user):\n    return user.name\n"})
    monkeypatch.chdir(root)
    return root


def files_of(query: str, **kw: object) -> list[tuple[str, list[int]]]:
    with Genesis() as g:
        result = g.search.run(query, g.search.options(files=True, **kw))  # type: ignore[arg-type]
    return [(fh.path, [c.start_line for c in fh.chunks]) for fh in group_by_file(result.hits)]


def test_a_file_that_only_history_links_to_the_query_is_ranked(shop_history: Path) -> None:
    files = files_of(QUERY, k=5)
    paths = [p for p, _ in files]
    assert "src/pricing/engine.py" in paths, files
    # no word of the query: only the last commit ("Add login") brings it, after the others
    assert paths[-1] == "src/shop/users.py", files
    # it matched no word: its first chunk stands for it
    assert dict(files)["src/pricing/engine.py"] == [1]


def test_a_plain_word_nothing_defines_is_still_ranked_with_impact(shop_history: Path) -> None:
    # no text says "rounding": only the commits that fixed it lead to the engine
    assert [p for p, _ in files_of("rounding", k=5)][:1] == ["src/pricing/engine.py"]


def test_the_files_are_cut_to_k_and_keep_the_filters(shop_history: Path) -> None:
    assert len(files_of(QUERY, k=1)) == 1
    only_docs = files_of(QUERY, k=5, paths=("docs/**",))
    assert [p for p, _ in only_docs] == ["docs/discounts.md"]
    code = files_of(QUERY, k=5, types=("CODE",))
    assert "docs/discounts.md" not in [p for p, _ in code]
    assert "src/pricing/engine.py" in [p for p, _ in code]


def test_vector_mode_stays_a_pure_vector_ranking(shop_history: Path) -> None:
    paths = [p for p, _ in files_of(QUERY, k=5, mode="vector")]
    assert "src/pricing/engine.py" not in paths  # no shared word, no history in vectors


def test_the_json_of_a_file_carries_impact_s_reasons(shop_history: Path) -> None:
    with Genesis() as g:
        result = g.search.run(QUERY, g.search.options(files=True, k=5))
    engine = [h for h in result.hits if h.path == "src/pricing/engine.py"]
    assert engine and engine[0].breakdown["impact"], engine
    assert engine[0].file_score is not None and engine[0].file_score > 0
