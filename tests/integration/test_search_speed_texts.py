"""A session index keeps the chunk texts a search read: the next search reads only the packs
of texts it has not seen, answers the same, and an edit (a new index) never shows an old
text."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, search
from genesis_git.search import texts as texts_module

from helpers import write

FILES = {
    "src/shop/widgets.py": "".join(f"def render_widget_{i}(data):\n    return 'widget {i}'\n\n\n"
                                   for i in range(30)),
    "src/shop/prices.py": "def price_total(cart):\n    return sum(cart)  # the price of a cart\n",
}

pytestmark = pytest.mark.shop(files=FILES)


def hits(ctx, query: str) -> list[tuple[str, int, str]]:  # type: ignore[no-untyped-def]
    sid = ensure_session(ctx)
    return [(h.path, h.start_line, h.text) for h in search(ctx, sid, query,
                                                           SearchOptions()).hits]


def test_a_second_search_reads_no_pack_for_texts_it_has(shop: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[list[int]] = []
    real = texts_module.read_packs

    def counted(conn, blob_ids, columns):  # type: ignore[no-untyped-def]
        read.append(sorted(blob_ids))
        return real(conn, blob_ids, columns)

    monkeypatch.setattr(texts_module, "read_packs", counted)
    ctx = open_context()
    first = hits(ctx, "render_widget_7")
    assert first and read
    read.clear()
    assert hits(ctx, "render_widget_7") == first
    assert read == []

    write(shop, "src/shop/widgets.py", "def render_widget_7(data):\n    return 'renamed'\n")
    after = hits(ctx, "render_widget_7")  # the refresh changed the store: a new index
    assert read
    assert [t for p, _, t in after if p == "src/shop/widgets.py"] == \
        ["def render_widget_7(data):\n    return 'renamed'"]
