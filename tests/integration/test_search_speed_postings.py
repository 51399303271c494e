"""A query's vector postings read through the base's map (a base of few postings) and read
with ``pread`` (a large one) are the same postings, and the same search results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, search, termindex
from genesis_git.search.base import arrayfile
from genesis_git.search.session_index import clear_memory, session_index

FILES = {f"src/pkg/mod_{i:02}.py": "".join(
    f"def handler_{i}_{j}(request):\n    return render(request, 'page {i} {j}')\n\n\n"
    for j in range(12)) for i in range(30)}

pytestmark = pytest.mark.shop(files=FILES)


def test_mapped_and_read_postings_are_the_same(shop: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = open_context()
    sid = ensure_session(ctx)
    search(ctx, sid, "handler render", SearchOptions())  # saves the search base
    clear_memory()
    part = session_index(ctx.conn, sid, "hash-t1-256").chunk_parts[0]
    assert part.content.source is not None  # read from the saved file
    terms = np.arange(0, part.content.hashes.shape[0], 2)
    reads: list[int] = []
    real = arrayfile.read_ranges

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(termindex, "read_ranges", counted)
    mapped = part.content.gather(terms)
    assert reads == []  # a small base: through the map
    mapped_hits = [(h.path, h.start_line, h.score) for h in
                   search(ctx, sid, "handler_3_4 request page", SearchOptions()).hits]
    monkeypatch.setattr(termindex, "MAP_POSTINGS_MAX", 0)  # as a large base is read
    read = part.content.gather(terms)
    assert reads
    assert all(np.array_equal(a, b) for a, b in zip(mapped, read, strict=True))
    assert mapped[0].shape[0] > 100
    assert [(h.path, h.start_line, h.score) for h in
            search(ctx, sid, "handler_3_4 request page", SearchOptions()).hits] == mapped_hits
