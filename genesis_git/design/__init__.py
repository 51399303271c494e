"""The design reference library: cards of design guidance that two readers share.

The library is a folder of plain files inside the working tree (by default
``.shared/design-library/``): ``manifest.json`` holds the cards,
``chunks.jsonl`` and ``index.json`` are derived from it, ``feedback.jsonl`` is
an append-only history, ``refs/`` holds reference images by content hash,
``inbox/`` receives new images, and ``query.mjs`` is a zero-dependency reader
that scores exactly as :func:`genesis_git.design.search.search` does.
"""

from __future__ import annotations

from genesis_git.design.library import Library, LibraryUnavailable, open_library
from genesis_git.design.manage import init_library
from genesis_git.design.search import search

__all__ = ["Library", "LibraryUnavailable", "init_library", "open_library", "search"]
