"""``g.search``: hybrid retrieval over the worktree's session, as ``genesis search`` runs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.search.grep import GrepResult
    from genesis_git.search.results import SearchOptions, SearchResult


class Search:
    """``genesis search`` (and the MCP tool ``search``)."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def options(self, *, k: int | None = None, mode: str | None = None,
                types: tuple[str, ...] = (), paths: tuple[str, ...] = (),
                component: str | None = None, owner: str | None = None,
                max_staleness: float | None = None, files: bool = False) -> SearchOptions:
        """The options of a search, checked; ``k`` and ``mode`` default to ``search.*``."""
        from genesis_git.search.results import SearchOptions

        config = self._ws.config
        return SearchOptions(
            k=k if k is not None else config.settings.search.k,
            mode=(mode or config.settings.search.mode).strip().lower(),
            types=tuple(types), paths=tuple(paths), component=component, owner=owner,
            max_staleness=max_staleness, files=files).validated()

    def run(self, query: str, options: SearchOptions | None = None, *, refresh: bool = True,
            announce: Callable[[str], None] | None = None) -> SearchResult:
        """Search: the query checked, the session refreshed (or started, said through
        ``announce``), then the search itself; ``options`` default to :meth:`options`."""
        from genesis_git.search.query import analyse

        opts = (options if options is not None else self.options()).validated()
        ctx = self._ws.caught_up()
        analyse(ctx.config, query)
        if refresh:
            ctx.repo.start_snapshot()  # git works on another core while numpy loads
        from genesis_git.search.fresh import search_fresh

        return search_fresh(ctx, query, opts, refresh=refresh, announce=announce)

    def grep(self, pattern: str, *, regex: bool = False, ignore_case: bool = False,
             paths: tuple[str, ...] = (), k: int | None = None, refresh: bool = True,
             announce: Callable[[str], None] | None = None) -> GrepResult:
        """``genesis search --fixed-strings`` / ``--regex``: every line of the session's files
        that holds ``pattern`` (the session refreshed first), the files ranked."""
        from genesis_git.index.session import ensure_session
        from genesis_git.search.grep import compile_pattern, grep

        compile_pattern(pattern, regex=regex, ignore_case=ignore_case)  # before any refresh
        ctx = self._ws.caught_up()
        sid = ensure_session(ctx, refresh=refresh, announce=announce)
        return grep(ctx.conn, ctx.repo.root, sid, pattern, regex=regex,
                    ignore_case=ignore_case, paths=paths, k=k)
