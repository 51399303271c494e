"""``genesis search --files``: impact's ten best files lead, ordered with the search's
agreement, the search's own files follow, and neither list depends on ``-k``
(genesis_git.app.services.search)."""

from __future__ import annotations

from genesis_git.app.services import search


def _order(mine: list[str], theirs: list[str]) -> list[str]:
    fused = search.fuse_files(mine, theirs)
    return sorted(fused, key=lambda p: (-fused[p], p))


def test_impacts_ten_files_lead_and_the_search_orders_them() -> None:
    theirs = [f"i{n:02d}.py" for n in range(1, 11)]
    mine = ["s1.py", "i10.py", "s2.py", "i09.py"]
    order = _order(mine, theirs)
    assert set(order[:10]) == set(theirs)
    assert max(order.index("i10.py"), order.index("i09.py")) < order.index("i08.py")  # lifted
    assert order[10:] == ["s1.py", "s2.py"]  # the search's own files, after impact's


def test_impacts_files_after_the_tenth_count_only_as_the_search_counts_them() -> None:
    theirs = [f"i{n:02d}.py" for n in range(1, 13)]
    order = _order(["i12.py", "i11.py"], theirs)
    assert order[:10] == theirs[:10]
    assert order[10:] == ["i12.py", "i11.py"]
    assert "i11.py" not in search.fuse_files([], theirs)
