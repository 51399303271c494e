"""``g.search``: hybrid retrieval over the worktree's session, as ``genesis search`` runs it.

With ``--files`` the answer is a ranking of files, and files are what ``genesis
impact`` ranks, with more evidence than a file's best chunk: the whole file's
text, its path, the names it defines, the commits that changed it with similar
messages and the files that change with it.  Search sits below impact in the
layers, so the two meet here: the search's files and impact's files are fused
by reciprocal rank (:data:`IMPACT_WEIGHT` for impact's :data:`IMPACT_FILES` best
files, :data:`SEARCH_WEIGHT` for the search's, ``k =`` :data:`FILES_RRF_K`), so
impact's best files come first, ordered with the search's agreement, and the
search's own files follow; neither list depends on ``-k``, so a longer answer
begins with the shorter one.  Each file shows the chunks
that matched it (a file that only impact found shows its best or first chunk,
:func:`genesis_git.search.pinned.path_hits`).  ``--mode vector`` stays a pure
vector ranking, and a query that is one identifier keeps the search's own order
(:mod:`genesis_git.search.exact`): the files that define it, then those that use it,
as ``git grep -w`` users expect, whatever impact makes of the name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.index.session import Context
    from genesis_git.search.grep import GrepResult
    from genesis_git.search.results import Hit, SearchOptions, SearchResult

IMPACT_WEIGHT = 1.0
IMPACT_FILES = 10  # impact's files in the fusion, whatever ``-k`` is
SEARCH_WEIGHT = 0.25
FILES_RRF_K = 20
FILES_POOL = 50  # files the search brings to the fusion, at least


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
        from genesis_git.kernel.errors import UsageError
        from genesis_git.search.engine import tokenless_name
        from genesis_git.search.identifiers import written_name
        from genesis_git.search.query import analyse

        opts = (options if options is not None else self.options()).validated()
        ctx = self._ws.caught_up()
        try:
            analyse(ctx.config, query)
            named = False
        except UsageError:  # only stopwords, unless a name (has(), S) the index has no token of
            if tokenless_name(query, opts.mode) is None:
                raise
            named = True
        if refresh:
            ctx.repo.start_snapshot()  # git works on another core while numpy loads
        from genesis_git.search.fresh import search_fresh

        if not opts.files or opts.mode == "vector" or named:  # impact reads no name of it
            return search_fresh(ctx, query, opts, refresh=refresh, announce=announce)
        if written_name(query):  # its definitions, then the files using it
            result = search_fresh(ctx, query, opts, refresh=refresh, announce=announce)
            if any("exact" in hit.breakdown for hit in result.hits):
                return result
            refresh = False  # a plain word nothing defines: ranked as words are, below
        wide = replace(opts, k=max(opts.k, FILES_POOL))
        result = search_fresh(ctx, query, wide, refresh=refresh, announce=announce)
        return ranked_files(ctx, query, opts, result)


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


def ranked_files(ctx: Context, query: str, opts: SearchOptions, result: SearchResult
                 ) -> SearchResult:
    """``result`` (a ``--files`` search of at least :data:`FILES_POOL` files) with its files
    ranked by the fusion of its own file order and impact's, cut to ``opts.k`` files."""
    from genesis_git.impact import ImpactOptions
    from genesis_git.impact import run as impact_run
    from genesis_git.search.files import group_by_file
    from genesis_git.search.pinned import path_hits

    if result.session_id is None:
        return result
    impact = impact_run(ctx, query, ImpactOptions(k=IMPACT_FILES, rag=False, engine="none"),
                        session_id=result.session_id)
    theirs = [f.path for f in impact.files]
    reasons = {f.path: f.reasons for f in impact.files}
    fused = fuse_files([fh.path for fh in group_by_file(result.hits)], theirs)
    by_path: dict[str, list[Hit]] = {}
    for hit in result.hits:
        by_path.setdefault(hit.path, []).append(hit)
    missing = [p for p in theirs if p not in by_path]
    by_path.update(path_hits(ctx, result.session_id, query, missing, opts))
    order = sorted((p for p in fused if p in by_path), key=lambda p: (-fused[p], p))[:opts.k]
    hits: list[Hit] = []
    for path in order:
        for hit in by_path[path][:opts.chunks_per_file]:
            hit.file_score = fused[path]
            if path in reasons:
                hit.breakdown["impact"] = dict(reasons[path])
            hits.append(hit)
    stats = {**result.stats, "impact_files": len(theirs)}
    warnings = [w for w in result.warnings if not (hits and w.startswith("no results"))]
    return replace(result, hits=hits, stats=stats, warnings=warnings)


def fuse_files(mine: list[str], theirs: list[str]) -> dict[str, float]:
    """The reciprocal-rank fusion of the search's file order (``mine``) and the first
    :data:`IMPACT_FILES` of impact's (``theirs``): each file's fused score."""
    fused: dict[str, float] = {}
    for weight, paths in ((IMPACT_WEIGHT, theirs[:IMPACT_FILES]), (SEARCH_WEIGHT, mine)):
        for rank, path in enumerate(paths, start=1):
            fused[path] = fused.get(path, 0.0) + weight / (FILES_RRF_K + rank)
    return fused
