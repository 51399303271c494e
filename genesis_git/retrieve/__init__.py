"""Retrieval over the session index: BM25 + vectors, fused, filtered and explained.

    from genesis_git.retrieve import SearchOptions, search
    result = search(ctx, session_id, "订单表新增字段", SearchOptions(k=5, types=("DB",)))
"""

from genesis_git.retrieve.engine import search
from genesis_git.retrieve.files import FileHit, group_by_file
from genesis_git.retrieve.results import ARTIFACT_TYPES, MODES, Hit, SearchOptions, SearchResult

__all__ = ["ARTIFACT_TYPES", "MODES", "FileHit", "Hit", "SearchOptions", "SearchResult",
           "group_by_file", "search"]
