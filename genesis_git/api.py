"""One object for any caller — the CLI, a service, an editor plugin: :class:`Genesis`.

    from genesis_git.api import Genesis

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

It plays the role of seed 000's ``GenesisService``: ``use_rag`` (off by
default) makes :meth:`Genesis.impact` ask the configured LLM engine, and an
:class:`~genesis_git.rag.impact_rag.ImpactRAG` given as ``rag`` is searched
instead of the repository (text kept outside git).  Parts of genesis that
are not installed raise :class:`~genesis_git.errors.GenesisError` with one
clear line.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from genesis_git.errors import GenesisError

if TYPE_CHECKING:
    import sqlite3

    from genesis_git.config import Config
    from genesis_git.design.library import Library
    from genesis_git.doctor import Finding
    from genesis_git.impact.agent import ImpactReport
    from genesis_git.impact.engines import Engine
    from genesis_git.index.indexer import IndexReport, Progress
    from genesis_git.rag.impact_rag import ImpactRAG
    from genesis_git.repo import Repo
    from genesis_git.retrieve.results import SearchResult
    from genesis_git.session import Context

Announce = Callable[[str], None]


def _part(module: str, what: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise GenesisError(f"{what} is not available in this installation of genesis") from None
        raise


class Genesis:
    """Session, search, impact, story and design of one repository (opened lazily)."""

    def __init__(self, repo_path: str | Path | None = None, *, use_rag: bool = False,
                 rag: ImpactRAG | None = None, engine: str | Engine | None = None,
                 scope: str | None = None, keep_corpus: bool = False):
        self.repo_path = Path(repo_path) if repo_path is not None else None
        self.use_rag = use_rag
        self.rag = rag
        self.engine = engine
        self.scope = scope
        self._ctx: Context | None = None
        self._repo: Repo | None = None
        self._config: Config | None = None
        # a long-lived caller (genesis mcp) keeps the impact corpus while the store is unchanged
        self.keep_corpus = keep_corpus
        self._kept: tuple[Any, Any] | None = None
        self._empty: sqlite3.Connection | None = None

    # -- plumbing ---------------------------------------------------------
    @property
    def repo(self) -> Repo:
        """The repository (found on first use; the store is not opened)."""
        if self._repo is None:
            from genesis_git.repo import find_repo

            self._repo = find_repo(self.repo_path)
        return self._repo

    @property
    def config(self) -> Config:
        """The repository's configuration, validated (read on first use)."""
        if self._config is None:
            from genesis_git.config import load_config

            self._config = load_config(self.repo.root)
        return self._config

    @property
    def store_dir(self) -> Path:
        """The store's folder (``$GENESIS_HOME``, else ``<git common dir>/genesis``)."""
        from genesis_git.db.connect import store_dir

        return store_dir(self.repo)

    @property
    def store_path(self) -> Path:
        """The store's SQLite file."""
        from genesis_git.db.connect import DB_NAME

        return self.store_dir / DB_NAME

    @property
    def log_path(self) -> Path:
        """The log of errors that are not the user's (their tracebacks)."""
        from genesis_git.db.connect import LOG_NAME

        return self.store_dir / LOG_NAME

    @property
    def context(self) -> Context:
        """The repository, its configuration and the open store (opened on first use)."""
        if self._ctx is None:
            from genesis_git.db.connect import connect, store_path
            from genesis_git.session import Context
            from genesis_git.story.journal import replay_journal

            db = store_path(self.repo)
            conn = connect(db)
            replay_journal(conn, db)  # bindings the hooks left while the store was busy
            from genesis_git.ledger.view import refresh_quietly

            refresh_quietly(conn, self.repo)  # a ledger ref that moved (git fetch) updates it
            self._ctx = Context(self.repo, self.config, conn)
        return self._ctx

    @property
    def ledger(self) -> sqlite3.Connection:
        """The store for reading the ledger; on a clone without a store, an empty ledger in
        memory, so that a read creates no store."""
        if self._ctx is None and not self.store_path.exists():
            if self._empty is None:
                from genesis_git.db.connect import connect

                self._empty = connect(":memory:")
            return self._empty
        return self.context.conn

    @property
    def library(self) -> Library:
        """The design library of the repository (plain files; the store is not opened)."""
        library = _part("genesis_git.design.library", "the design library")
        lib: Library = library.open_library(self.repo.root, repo=self.repo, config=self.config)
        return lib

    # -- the repository ---------------------------------------------------------
    def init(self, *, share: bool = False) -> dict[str, Any]:
        """Create the store and a commented ``.genesis.toml`` (idempotent); ``share`` writes
        ``[ledger] share = true``.  When sharing is on, the remote's ledger is pulled."""
        from genesis_git.initialize import init_repo
        from genesis_git.story.catchup import bind_new_commits

        return init_repo(self.repo.root, share=share, bind=bind_new_commits)

    def doctor(self) -> list[Finding]:
        """Every check of ``genesis doctor``; a finding's ``status`` is ok, warn or error."""
        from genesis_git.doctor import run_checks

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

    def close(self) -> None:
        if self._ctx is not None:
            self._ctx.conn.close()
            self._ctx = None
        if self._empty is not None:
            self._empty.close()
            self._empty = None

    def __enter__(self) -> Genesis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- session ----------------------------------------------------------------
    def session(self, *, refresh: bool = True) -> str:
        """The active session id of the worktree: refreshed, or started when there is none."""
        from genesis_git.session import ensure_session

        return ensure_session(self.context, refresh=refresh)

    def session_info(self) -> dict[str, Any]:
        """The summary of the active session (files, chunks, types, artifacts)."""
        from genesis_git.session import get, summary

        sid = self.session(refresh=False)
        return summary(self.context, get(self.context, sid))

    def start_session(self, *, name: str | None = None, doc: str | None = None,
                      new: bool = False, progress: Progress | None = None,
                      prebuild: bool = True) -> IndexReport:
        """Start (or resume) the worktree's session and index the working tree into it.

        With ``prebuild``, a large session's search base is built by a background process.
        """
        from genesis_git.session import start

        report = start(self.context, name=name, doc=doc, new=new, progress=progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def refresh_session(self, *, progress: Progress | None = None,
                        prebuild: bool = True) -> IndexReport:
        """Map only what changed since the last scan into the active session."""
        from genesis_git.session import refresh

        report = refresh(self.context, progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def _prebuild(self, session_id: str) -> None:
        from genesis_git.retrieve.prebuild import maybe_spawn

        maybe_spawn(self.context, session_id)

    def active_session(self) -> dict[str, Any] | None:
        """The summary of the worktree's active session, or ``None`` (nothing is started)."""
        from genesis_git.session import active_session, summary

        row = active_session(self.context.conn, self.repo)
        return None if row is None else summary(self.context, row)

    def sessions(self, *, all_worktrees: bool = False) -> list[dict[str, Any]]:
        """The sessions of this worktree (or of every worktree), newest first."""
        from genesis_git.session import list_sessions

        return list_sessions(self.context, all_worktrees)

    def session_summary(self, session_id: str) -> dict[str, Any]:
        from genesis_git.session import get, summary

        return summary(self.context, get(self.context, session_id))

    def end_session(self, session_id: str | None = None) -> str:
        """End a session (default: the active one); its notes stay in the ledger."""
        from genesis_git.session import end

        return end(self.context, session_id)

    def pending_notes(self, session_id: str) -> int:
        """Notes of the session that no story holds yet."""
        from genesis_git.session import pending_notes

        return pending_notes(self.context, session_id)

    def note(self, text: str, *, role: str = "note", path: str | None = None,
             section: str | None = None, private: bool = False,
             announce: Announce | None = None) -> dict[str, Any]:
        """Record a note in the session; the next commit with a story id binds it.  A
        ``private`` note stays in this clone (never in the shared ledger)."""
        from genesis_git.story.artifacts import add_note, check_role

        check_role(role)  # before a session is started for nothing
        return add_note(self.context, text, role=role, path=path, section=section,
                        private=private, announce=announce)

    def artifacts(self, session_id: str | None = None) -> dict[str, Any]:
        """The notes of a session (default: the active one) and the stories they are bound to."""
        from genesis_git.story.artifacts import list_artifacts

        return list_artifacts(self.context.conn, self.repo, session_id)

    # -- search -----------------------------------------------------------------
    def search(self, query: str, k: int = 10, **filters: Any) -> Any:
        """Hybrid retrieval over the session (:func:`genesis_git.retrieve.search`)."""
        retrieve = _part("genesis_git.retrieve", "search")
        sid = self.session()
        return retrieve.search(self.context, sid, query, retrieve.SearchOptions(k=k, **filters))

    def search_query(self, query: str, *, k: int | None = None, mode: str | None = None,
                     types: tuple[str, ...] = (), paths: tuple[str, ...] = (),
                     component: str | None = None, owner: str | None = None,
                     max_staleness: float | None = None, files: bool = False,
                     refresh: bool = True, announce: Announce | None = None) -> SearchResult:
        """``genesis search``: options checked first (defaults from ``search.*``), the session
        refreshed (or started, said through ``announce``), then the search itself."""
        from genesis_git.retrieve.query import analyse
        from genesis_git.retrieve.results import SearchOptions

        ctx = self.context
        opts = SearchOptions(
            k=k if k is not None else ctx.config.int("search.k"),
            mode=(mode or ctx.config.str("search.mode")).strip().lower(),
            types=tuple(types), paths=tuple(paths), component=component, owner=owner,
            max_staleness=max_staleness, files=files).validated()
        analyse(ctx.config, query)
        if refresh:
            ctx.repo.start_snapshot()  # git works on another core while numpy loads
        from genesis_git.retrieve.fresh import search_fresh

        return search_fresh(ctx, query, opts, refresh=refresh, announce=announce)

    # -- impact ---------------------------------------------------------------
    def investigate(self, requirement: str, *, use_rag: bool | None = None,
                    engine: str | None = None, k: int = 10, graph: bool = True,
                    history: bool = True, stories: bool = True, prompt_only: bool = False,
                    refresh: bool = True, announce: Announce | None = None) -> ImpactReport:
        """``genesis impact``: the requirement checked first, the session refreshed, then the
        investigation; ``use_rag=None`` asks the engine when one is configured."""
        from genesis_git.impact.agent import ImpactOptions, analyse_requirement, investigate
        from genesis_git.impact.engines import get_engine
        from genesis_git.session import ensure_session

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

    # -- story ------------------------------------------------------------------
    def story(self, story_id: str, **kwargs: Any) -> Any:
        """The context of a story (its commits, files and artifacts) from the ledger."""
        context = _part("genesis_git.story.context", "the story ledger")
        kwargs.setdefault("repo", self.repo)
        return context.build_context(self.ledger, story_id, **kwargs)

    def stories(self) -> list[tuple[str, str, list[str]]]:
        """``(story_id, text, paths)`` of every story of the ledger."""
        ledger = _part("genesis_git.story.ledger", "the story ledger")
        return list(ledger.story_texts(self.context.conn))

    def story_list(self, status: str | None = None) -> list[dict[str, Any]]:
        """The stories (with this status), most recently updated first."""
        ledger = _part("genesis_git.story.ledger", "the story ledger")
        rows: list[dict[str, Any]] = ledger.list_records(self.ledger, status)
        return rows

    def story_show(self, story_id: str) -> dict[str, Any]:
        """A story's record, its counts and its links."""
        ledger = _part("genesis_git.story.ledger", "the story ledger")
        rec: dict[str, Any] = ledger.show_record(self.ledger, story_id)
        return rec

    def story_set(self, story_id: str, *, status: str | None = None,
                  title: str | None = None) -> tuple[dict[str, Any], bool]:
        """Set a story's status and/or title: ``(record, created)``."""
        ledger = _part("genesis_git.story.ledger", "the story ledger")
        from genesis_git.story.artifacts import author

        rec, created = ledger.set_record(self.context.conn, self.repo.project_id, story_id,
                                         status=status, title=title, by=author(self.repo))
        return rec, bool(created)

    def story_link(self, story_id: str, link_type: str, target: str,
                   description: str | None = None) -> dict[str, Any]:
        """Link a story to a story, ADR, ticket, PR, commit (bound with its files), doc or URL."""
        binding = _part("genesis_git.story.binding", "the story ledger")
        res: dict[str, Any] = binding.link_story(self.context.conn, self.repo, self.config,
                                                 story_id, link_type, target, description)
        return res

    def story_bind(self, story_id: str, session_id: str | None = None) -> dict[str, Any]:
        """Bind pending notes (of one session, default: every session of this worktree) and
        the session's ``--doc`` to an existing story, by hand."""
        binding = _part("genesis_git.story.binding", "the story ledger")
        res: dict[str, Any] = binding.bind_notes(self.context.conn, self.repo, story_id,
                                                 session_id)
        return res

    def story_rebuild(self, *, prune: bool = False, from_scratch: bool = False
                      ) -> dict[str, Any]:
        """Re-derive stories, commit links and changed files from ``git log`` (idempotent).

        ``from_scratch`` first moves the store aside (a damaged one, say) and starts a new
        one with the ledger rows that can still be read."""
        rebuild = _part("genesis_git.story.rebuild", "the story ledger")
        aside = None
        salvaged: dict[str, int] = {}
        if from_scratch:
            self.close()
            aside = rebuild.move_aside(self.store_path)
            if aside is not None:
                salvaged = rebuild.salvage(self.context.conn, aside)
        res: dict[str, Any] = rebuild.rebuild(self.context.conn, self.repo, self.config,
                                              prune=prune)
        if from_scratch:
            res["moved_aside"] = str(aside) if aside else None
            res["salvaged"] = salvaged
        return res

    # -- the organisation's mirror (PostgreSQL) --------------------------------
    def mirror(self, url: str | None = None) -> dict[str, Any]:
        """Write this repository's ledger records into the PostgreSQL mirror.

        Only git and the configuration are read: the local store is not opened.
        """
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.mirror(self.repo, self.config, url)
        return result

    def mirror_after_sync(self) -> tuple[dict[str, Any] | None, GenesisError | None]:
        """What ``genesis sync`` does after syncing: mirror when a mirror is configured.

        ``(result, None)``; ``(None, None)`` without a mirror; ``({"error": …}, error)``
        when the mirror failed, so that the sync, which did succeed, is still reported.
        """
        if not self.config.str("ledger.mirror").strip():
            return None, None
        try:
            return self.mirror(), None
        except GenesisError as exc:
            return {"error": str(exc), "exit_code": int(exc.exit_code)}, exc

    def org_stories(self, *, url: str | None = None, status: str | None = None,
                    project: str | None = None) -> dict[str, Any]:
        """The stories of every repository in the mirror, each with its projects."""
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.org_stories(service.config_here(self.repo_path), url,
                                                     status=status, project=project)
        return result

    def org_story(self, story_id: str, *, url: str | None = None) -> dict[str, Any]:
        """A story's context from every repository in the mirror, each item with its project."""
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.org_story(service.config_here(self.repo_path),
                                                   story_id, url)
        return result

    # -- design ---------------------------------------------------------------
    def sync(self, remote: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``genesis sync``: fetch, merge and push the story ledger, update the view."""
        from genesis_git.db.connect import store_path
        from genesis_git.ledger.records import GitError
        from genesis_git.ledger.sync import sync
        from genesis_git.story.catchup import bind_new_commits

        ctx = self.context
        kwargs.setdefault("bind", bind_new_commits)
        try:
            return sync(ctx.conn, ctx.repo, ctx.config, remote,
                        store_dir=store_path(ctx.repo).parent, **kwargs)
        except GitError as exc:
            raise GenesisError(f"genesis sync: {exc}",
                               hint="nothing was lost; run `genesis sync` again") from None

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
