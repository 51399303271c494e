"""Retrieval over the session index: BM25 + vectors, fused, filtered and explained.

    from genesis_git.search import SearchOptions, search
    result = search(ctx, session_id, "订单表新增字段", SearchOptions(k=5, types=("DB",)))

Names are imported on first use, so that ``SearchOptions`` costs no numpy
import (the CLI validates options before it starts any work).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.search.engine import search
    from genesis_git.search.files import FileHit, group_by_file
    from genesis_git.search.results import (
        ARTIFACT_TYPES,
        MODES,
        Hit,
        SearchOptions,
        SearchResult,
    )

_WHERE = {
    "search": "engine", "FileHit": "files", "group_by_file": "files",
    "ARTIFACT_TYPES": "results", "MODES": "results", "Hit": "results",
    "SearchOptions": "results", "SearchResult": "results",
}

__all__ = ["ARTIFACT_TYPES", "MODES", "FileHit", "Hit", "SearchOptions", "SearchResult",
           "group_by_file", "search"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"genesis_git.search.{where}"), name)
    globals()[name] = value
    return value
