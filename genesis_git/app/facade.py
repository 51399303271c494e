"""One object for any caller — the CLI, a service, an editor plugin: :class:`Genesis`.

    from genesis_git.app.facade import Genesis

    with Genesis("path/to/repo") as g:
        g.session()                                   # start or refresh the session index
        g.search("order total", k=5)                  # hybrid retrieval
        g.impact("订单表新增字段 discount_code")        # the impact result dict
        g.story("STORY-12")                           # a story's context
        g.design("card spacing")                      # the design library

The ``genesis`` command calls nothing else: each of its commands is one call
of a method here (or of a core function given :attr:`Genesis.context` or
:attr:`Genesis.library`), so that any other front end (an MCP server, an
editor) gets exactly what the command line gets.

It plays the role of the library API's ``GenesisService``
(docs/explanation/architecture.md): ``use_rag`` (off by default) makes
:meth:`Genesis.impact` ask the configured LLM engine, and an
:class:`~genesis_git.rag.impact_rag.ImpactRAG` given as ``rag`` is searched instead of
the repository (text kept outside git). Parts of genesis that are not installed raise
:class:`~genesis_git.kernel.errors.GenesisError` with one clear line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genesis_git.app.facade_stories import LedgerCommands
from genesis_git.app.plumbing import Announce, _part

if TYPE_CHECKING:
    from genesis_git.app.doctor import Finding
    from genesis_git.impact.agent import ImpactReport
    from genesis_git.index.indexer import IndexReport, Progress
    from genesis_git.providers.llm import Engine
    from genesis_git.search.results import SearchResult


class Genesis(LedgerCommands):
    """Session, search, impact, story and design of one repository (opened lazily).

    The plumbing (the repository, its configuration, the store) is
    :class:`~genesis_git.app.plumbing.GenesisBase`; the story ledger's commands are
    :class:`~genesis_git.app.facade_stories.LedgerCommands`.
    """

    # -- the repository ---------------------------------------------------------
    def init(self, *, share: bool = False) -> dict[str, Any]:
        """Create the store and a commented ``.genesis.toml`` (idempotent); ``share`` writes
        ``[ledger] share = true``.  When sharing is on, the remote's ledger is pulled."""
        from genesis_git.app.initialize import init_repo
        from genesis_git.stories.catchup import bind_new_commits

        return init_repo(self.repo.root, share=share, bind=bind_new_commits)

    def doctor(self) -> list[Finding]:
        """Every check of ``genesis doctor``; a finding's ``status`` is ok, warn or error."""
        from genesis_git.app.doctor import run_checks

        return run_checks(self.repo_path)

    def install_hooks(self, *, follow_hooks_path: bool = False) -> dict[str, Any]:
        """Write the hook shims (a hook already there is kept as ``<hook>.legacy``)."""
        from genesis_git.hooks.install import install

        return install(self.repo, follow_hooks_path=follow_hooks_path)

    def uninstall_hooks(self) -> dict[str, Any]:
        from genesis_git.hooks.install import uninstall

        return uninstall(self.repo)

    def hooks_status(self) -> dict[str, Any]:
        from genesis_git.hooks.install import status

        return status(self.repo)

    def cache_stats(self) -> dict[str, Any]:
        from genesis_git.index.cache import stats

        ctx = self.context
        return stats(ctx.conn, ctx.repo)

    def cache_gc(self, *, dry_run: bool = False) -> dict[str, Any]:
        from genesis_git.index.cache import gc

        ctx = self.context
        return gc(ctx.conn, ctx.repo, ctx.config, dry_run)

    # -- session ----------------------------------------------------------------
    def session(self, *, refresh: bool = True) -> str:
        """The active session id of the worktree: refreshed, or started when there is none."""
        from genesis_git.index.session import ensure_session

        return ensure_session(self.context, refresh=refresh)

    def session_info(self) -> dict[str, Any]:
        """The summary of the active session (files, chunks, types, artifacts)."""
        from genesis_git.index.session import get, summary

        sid = self.session(refresh=False)
        return summary(self.context, get(self.context, sid))

    def start_session(self, *, name: str | None = None, doc: str | None = None,
                      new: bool = False, progress: Progress | None = None,
                      prebuild: bool = True) -> IndexReport:
        """Start (or resume) the worktree's session and index the working tree into it.

        With ``prebuild``, a large session's search base is built by a background process.
        """
        from genesis_git.index.session import start

        report = start(self.context, name=name, doc=doc, new=new, progress=progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def refresh_session(self, *, progress: Progress | None = None,
                        prebuild: bool = True) -> IndexReport:
        """Map only what changed since the last scan into the active session."""
        from genesis_git.index.session import refresh

        report = refresh(self.context, progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def _prebuild(self, session_id: str) -> None:
        from genesis_git.search.base.prebuild import maybe_spawn

        maybe_spawn(self.context, session_id)

    def active_session(self) -> dict[str, Any] | None:
        """The summary of the worktree's active session, or ``None`` (nothing is started)."""
        from genesis_git.index.session import active_session, summary

        row = active_session(self.context.conn, self.repo)
        return None if row is None else summary(self.context, row)

    def sessions(self, *, all_worktrees: bool = False) -> list[dict[str, Any]]:
        """The sessions of this worktree (or of every worktree), newest first."""
        from genesis_git.index.session import list_sessions

        return list_sessions(self.context, all_worktrees)

    def session_summary(self, session_id: str) -> dict[str, Any]:
        from genesis_git.index.session import get, summary

        return summary(self.context, get(self.context, session_id))

    def end_session(self, session_id: str | None = None) -> str:
        """End a session (default: the active one); its notes stay in the ledger."""
        from genesis_git.index.session import end

        return end(self.context, session_id)

    def pending_notes(self, session_id: str) -> int:
        """Notes of the session that no story holds yet."""
        from genesis_git.index.session import pending_notes

        return pending_notes(self.context, session_id)

    def note(self, text: str, *, role: str = "note", path: str | None = None,
             section: str | None = None, private: bool = False,
             announce: Announce | None = None) -> dict[str, Any]:
        """Record a note in the session; the next commit with a story id binds it.  A
        ``private`` note stays in this clone (never in the shared ledger)."""
        from genesis_git.stories.artifacts import add_note, check_role

        check_role(role)  # before a session is started for nothing
        return add_note(self.context, text, role=role, path=path, section=section,
                        private=private, announce=announce)

    def retract(self, note_id: str) -> dict[str, Any]:
        """Take a note of this clone back (``12``, ``#12``, ``note:<record id>``): it leaves its
        session and every story; ``genesis sync`` takes the retraction to the team."""
        from genesis_git.stories.artifacts import retract_note

        return retract_note(self.context.conn, note_id)

    def artifacts(self, session_id: str | None = None) -> dict[str, Any]:
        """The notes of a session (default: the active one) and the stories they are bound to."""
        from genesis_git.stories.artifacts import list_artifacts

        return list_artifacts(self.context.conn, self.repo, session_id)

    # -- search -----------------------------------------------------------------
    def search(self, query: str, k: int = 10, **filters: Any) -> Any:
        """Hybrid retrieval over the session (:func:`genesis_git.search.search`)."""
        retrieve = _part("genesis_git.search", "search")
        sid = self.session()
        return retrieve.search(self.context, sid, query, retrieve.SearchOptions(k=k, **filters))

    def search_query(self, query: str, *, k: int | None = None, mode: str | None = None,
                     types: tuple[str, ...] = (), paths: tuple[str, ...] = (),
                     component: str | None = None, owner: str | None = None,
                     max_staleness: float | None = None, files: bool = False,
                     refresh: bool = True, announce: Announce | None = None) -> SearchResult:
        """``genesis search``: options checked first (defaults from ``search.*``), the session
        refreshed (or started, said through ``announce``), then the search itself."""
        from genesis_git.search.query import analyse
        from genesis_git.search.results import SearchOptions

        ctx = self.context
        opts = SearchOptions(
            k=k if k is not None else ctx.config.int("search.k"),
            mode=(mode or ctx.config.str("search.mode")).strip().lower(),
            types=tuple(types), paths=tuple(paths), component=component, owner=owner,
            max_staleness=max_staleness, files=files).validated()
        analyse(ctx.config, query)
        if refresh:
            ctx.repo.start_snapshot()  # git works on another core while numpy loads
        from genesis_git.search.fresh import search_fresh

        return search_fresh(ctx, query, opts, refresh=refresh, announce=announce)

    # -- impact ---------------------------------------------------------------
    def investigate(self, requirement: str, *, use_rag: bool | None = None,
                    engine: str | None = None, k: int = 10, graph: bool = True,
                    history: bool = True, stories: bool = True, prompt_only: bool = False,
                    refresh: bool = True, announce: Announce | None = None) -> ImpactReport:
        """``genesis impact``: the requirement checked first, the session refreshed, then the
        investigation; ``use_rag=None`` asks the engine when one is configured."""
        from genesis_git.impact.agent import ImpactOptions, analyse_requirement, investigate
        from genesis_git.index.session import ensure_session
        from genesis_git.providers.llm import get_engine

        analyse_requirement(requirement)  # bad input fails before any indexing
        ctx = self.context
        engine_obj = get_engine(engine, ctx.config)
        rag = use_rag if use_rag is not None else engine_obj is not None
        sid = ensure_session(ctx, refresh=refresh, announce=announce)
        options = ImpactOptions(k=k, chunks=ctx.config.int("impact.k"), graph=graph,
                                history=history, stories=stories)
        return investigate(ctx, requirement, session_id=sid, use_rag=rag and not prompt_only,
                           engine=engine_obj, options=options, prompt_only=prompt_only,
                           corpus=self._corpus(sid))

    def _corpus(self, session_id: str) -> Any:
        """The session's impact corpus, kept while the store is unchanged (``keep_corpus``)."""
        if not self.keep_corpus:
            return None
        from genesis_git.impact.agent import load_context_corpus

        conn = self.context.conn
        key = (session_id, int(conn.execute("PRAGMA data_version").fetchone()[0]),
               conn.total_changes)
        if self._kept is None or self._kept[0] != key:
            self._kept = None  # let the old one go before the new one is read
            corpus = load_context_corpus(self.context, session_id)
            corpus.keep = True  # so it keeps its graph and file flags too
            key = (session_id, int(conn.execute("PRAGMA data_version").fetchone()[0]),
                   conn.total_changes)  # reading may have prepared facts: that is the new state
            self._kept = (key, corpus)
        return self._kept[1]

    def impact_report(self, requirement: str, *, use_rag: bool | None = None,
                      engine: str | Engine | None = None, k: int = 10, graph: bool = True,
                      history: bool = True, stories: bool = True,
                      prompt_only: bool = False) -> ImpactReport:
        """The impact result with its warnings, suggestions and (for RAG) the prompt."""
        from genesis_git.impact.agent import ImpactAgent, ImpactOptions

        rag_mode = self.use_rag if use_rag is None else use_rag
        chosen = engine if engine is not None else self.engine
        if self.rag is not None:
            agent = ImpactAgent(rag=self.rag, engine=chosen if chosen is not None else "none",
                                options=ImpactOptions(k=k, graph=graph, history=history,
                                                      stories=stories))
            return agent.investigate(requirement, scope=self.scope, use_rag=rag_mode,
                                     prompt_only=prompt_only)
        ctx = self.context
        sid = self.session()
        agent = ImpactAgent(engine=chosen, context=ctx, corpus=self._corpus(sid),
                            options=ImpactOptions(k=k, chunks=ctx.config.int("impact.k"),
                                                  graph=graph, history=history, stories=stories))
        return agent.investigate(requirement, scope=sid, use_rag=rag_mode, prompt_only=prompt_only)

    def impact(self, requirement: str, **kwargs: Any) -> dict[str, Any]:
        """``{"requirement", "mode", "impacts", "files"}`` (see :mod:`genesis_git.impact.result`)."""
        return self.impact_report(requirement, **kwargs).result

    def impact_prompt(self, requirement: str, k: int = 10) -> str:
        """The LLM prompt that ``use_rag`` would send, for any LLM."""
        prompt = self.impact_report(requirement, k=k, prompt_only=True).prompt
        assert prompt is not None
        return prompt

    # -- design ---------------------------------------------------------------
    def design(self, query: str, top: int | None = None) -> dict[str, Any]:
        """Search the design library of the repository."""
        search = _part("genesis_git.design.search", "the design library")
        result: dict[str, Any] = search.search(self.library, query, top)
        return result

    def design_search(self, query: str, top: int | None = None) -> dict[str, Any]:
        """:meth:`design` as ``genesis design search --json`` prints it: ``available`` says
        whether the library could be read; an unreadable one is a warning, not an error."""
        from genesis_git.design.library import LibraryUnavailable

        try:
            result = self.design(query, top)
            result["available"] = True
        except LibraryUnavailable as exc:
            lib = self.library
            result = {"query": query, "ranker": "lexical", "reranked": False, "terms": [],
                      "results": [], "warnings": [f"design library unavailable: {exc}"],
                      "library": lib.display(lib.root), "available": False}
        return result

    def design_brief(self, task: str | None, *, out: str | None = None,
                     request: str | None = None) -> dict[str, Any]:
        """Write a brief of 3-5 cards and append its inspiration record (``design brief``)."""
        brief = _part("genesis_git.design.brief", "the design library")
        result: dict[str, Any] = brief.brief(self.library, task, out=out, request=request)
        return result
