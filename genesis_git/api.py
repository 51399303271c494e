"""One object for any caller — the CLI, a service, an editor plugin: :class:`Genesis`.

    from genesis_git.api import Genesis

    with Genesis("path/to/repo") as g:
        g.session()                                   # start or refresh the session index
        g.search("order total", k=5)                  # hybrid retrieval
        g.impact("订单表新增字段 discount_code")        # the impact result dict
        g.story("STORY-12")                           # a story's context
        g.design("card spacing")                      # the design library

It plays the role of seed 000's ``GenesisService``: ``use_rag`` (off by
default) makes :meth:`Genesis.impact` ask the configured LLM engine, and an
:class:`~genesis_git.rag.impact_rag.ImpactRAG` given as ``rag`` is searched
instead of the repository (text kept outside git).  Parts of genesis that
are not installed raise :class:`~genesis_git.errors.GenesisError` with one
clear line.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from genesis_git.errors import GenesisError

if TYPE_CHECKING:
    from genesis_git.impact.agent import ImpactReport
    from genesis_git.impact.engines import Engine
    from genesis_git.rag.impact_rag import ImpactRAG
    from genesis_git.session import Context


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
                 scope: str | None = None):
        self.repo_path = Path(repo_path) if repo_path is not None else None
        self.use_rag = use_rag
        self.rag = rag
        self.engine = engine
        self.scope = scope
        self._ctx: Context | None = None

    # -- plumbing ---------------------------------------------------------
    @property
    def context(self) -> Context:
        """The repository, its configuration and the open store (opened on first use)."""
        if self._ctx is None:
            from genesis_git.session import open_context

            self._ctx = open_context(self.repo_path)
        return self._ctx

    def close(self) -> None:
        if self._ctx is not None:
            self._ctx.conn.close()
            self._ctx = None

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

    # -- search -----------------------------------------------------------------
    def search(self, query: str, k: int = 10, **filters: Any) -> Any:
        """Hybrid retrieval over the session (:func:`genesis_git.retrieve.search`)."""
        retrieve = _part("genesis_git.retrieve", "search")
        sid = self.session()
        return retrieve.search(self.context, sid, query, retrieve.SearchOptions(k=k, **filters))

    # -- impact ---------------------------------------------------------------
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
        agent = ImpactAgent(engine=chosen, context=ctx,
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
        return context.build_context(self.context.conn, story_id, **kwargs)

    def stories(self) -> list[tuple[str, str, list[str]]]:
        """``(story_id, text, paths)`` of every story of the ledger."""
        ledger = _part("genesis_git.story.ledger", "the story ledger")
        return list(ledger.story_texts(self.context.conn))

    # -- design ---------------------------------------------------------------
    def design(self, query: str, top: int | None = None) -> dict[str, Any]:
        """Search the design library of the repository."""
        library = _part("genesis_git.design.library", "the design library")
        search = _part("genesis_git.design.search", "the design library")
        ctx = self.context
        lib = library.open_library(ctx.repo.root, repo=ctx.repo, config=ctx.config)
        result: dict[str, Any] = search.search(lib, query, top)
        return result
