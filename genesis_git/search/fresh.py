"""A search of the working tree as it is now, with git's refresh and the search overlapped.

Every search first refreshes the session: git reports the working tree (about
ten milliseconds of ``git status`` on a few thousand files) and, when nothing
changed, the state key answers at once.  A long-lived process (the MCP server)
holds the session's rows in memory, so it searches them while git runs on the
other core; when the refresh then finds the state it started from, that result
is the answer, and otherwise the search runs again over the refreshed rows.
The answer is the same either way: the early one is kept only when the
session's state key, and so its map, did not move.
"""

from __future__ import annotations

from collections.abc import Callable

from genesis_git.index.session import Context, active_session, ensure_session
from genesis_git.index.state import known_state
from genesis_git.providers.embedders import embedder_id, get_embedder
from genesis_git.search.engine import search
from genesis_git.search.results import SearchOptions, SearchResult
from genesis_git.search.session_index import is_warm


def _state_of(ctx: Context, session_id: str) -> str | None:
    state = known_state(ctx.conn, session_id)
    return str(state.get("key")) if state else None


def search_fresh(ctx: Context, query: str, opts: SearchOptions, *, refresh: bool = True,
                 announce: Callable[[str], None] | None = None) -> SearchResult:
    """:func:`~genesis_git.search.engine.search` over the session refreshed now (started
    when there is none)."""
    early: SearchResult | None = None
    before: str | None = None
    if refresh:
        ctx.repo.start_snapshot()  # git works on another core meanwhile
        current = active_session(ctx.conn, ctx.repo)
        if current is not None:
            sid = str(current["id"])
            before = _state_of(ctx, sid)
            if before is not None and is_warm(ctx.conn, sid,
                                              embedder_id(get_embedder(ctx.config))):
                early = search(ctx, sid, query, opts)
    session_id = ensure_session(ctx, refresh=refresh, announce=announce)
    if early is not None and early.session_id == session_id \
            and _state_of(ctx, session_id) == before:
        return early
    return search(ctx, session_id, query, opts)
