"""A corpus kept between queries (``genesis mcp``) ranks exactly as a corpus read per query."""

from __future__ import annotations

from pathlib import Path

from pytest_mock import MockerFixture

from genesis_git.app.facade import Genesis
from genesis_git.impact.agent import ImpactOptions

from helpers import make_repo

REQUIREMENTS = [
    "订单表新增字段 discount_code",
    "add a discount code to orders",
    "OrderService.create should reject an empty cart",
    "remove the status column from the orders table",
    "user login token expires",
    "qwxz nothing",
]


def test_a_kept_corpus_gives_the_same_impacts(shop: Path) -> None:
    with Genesis(shop) as fresh, Genesis(shop, keep_corpus=True) as kept:
        for requirement in REQUIREMENTS * 2:  # the second round reads what the first kept
            for switches in ({}, {"graph": False}, {"history": False, "stories": False}):
                options = ImpactOptions(**switches)
                assert kept.impact.run(requirement, options).result == \
                    fresh.impact.run(requirement, options).result
        assert kept.impact._kept is not None
        held = kept.impact._kept[1]
        kept.impact.run(REQUIREMENTS[0])
        assert kept.impact._kept[1] is held  # nothing changed: the same corpus answered
        (shop / "app" / "coupons.py").write_text("def apply_discount_code(order):\n    pass\n")
        assert kept.impact.run("apply_discount_code").result == \
            fresh.impact.run("apply_discount_code").result
        assert kept.impact._kept[1] is not held  # the refresh saw the new file
        assert kept.impact.run("apply_discount_code").result["files"][0]["path"] == \
            "app/coupons.py"


def test_a_search_overlapped_with_the_refresh_is_the_plain_search(
        shop: Path, mocker: MockerFixture) -> None:
    """Search in a long-lived process runs while git refreshes; its result is kept only when
    the refresh found the state it started from, so an edit a moment ago is always seen."""
    import genesis_git.search.fresh as fresh_mod
    from genesis_git.render.search import to_json

    spy = mocker.spy(fresh_mod, "search")
    queries = ["discount code", "订单", "OrderService create", "login token"]
    with Genesis(shop) as plain, Genesis(shop, keep_corpus=True) as kept:
        for q in queries * 2:
            assert to_json(kept.search.run(q)) == to_json(plain.search.run(q))
        kept.search.run("discount code")  # the rows are kept in memory for this connection
        calls = spy.call_count
        early = kept.search.run("discount code")
        assert spy.call_count == calls + 1  # warm and unchanged: the early search answered
        assert to_json(early) == to_json(plain.search.run("discount code"))
        kept.search.run("discount code")
        (shop / "app" / "coupons.py").write_text("def apply_zebra_voucher(order):\n    pass\n")
        calls = spy.call_count
        hits = kept.search.run("zebra voucher").hits
        assert spy.call_count == calls + 2  # the early search was dropped and run again
        assert hits and hits[0].path == "app/coupons.py"
        assert to_json(kept.search.run("zebra voucher")) == \
            to_json(plain.search.run("zebra voucher"))


def test_a_long_lived_process_keeps_the_rows_of_several_repositories(
        shop: Path, tmp_path: Path, mocker: MockerFixture) -> None:
    """An agent that works in two repositories in turn does not re-read either one's rows."""
    import genesis_git.search.session_index as si

    other = make_repo(tmp_path / "other", {"notes/zebra.md": "# Zebra voucher\nrules\n"})
    assemble = mocker.spy(si, "_assemble")
    with Genesis(shop, keep_corpus=True) as a, Genesis(other, keep_corpus=True) as b:
        for _ in range(2):  # the first round starts b's session and saves both bases
            a.search.run("discount code")
            b.search.run("zebra voucher")
        built = assemble.call_count
        for _ in range(3):
            assert a.search.run("discount code").hits
            assert b.search.run("zebra voucher").hits[0].path == "notes/zebra.md"
        assert assemble.call_count == built  # both stayed in memory
        conn = b.workspace.caught_up().conn
        assert any(v[0] is conn for v in si._MEMO.values())
    assert not any(v[0] is conn for v in si._MEMO.values())  # closing let them go
