"""``g.impact``: the files, symbols and fields a requirement affects.

Every door reaches the impact engine through :meth:`Impact.run` only.  Whether the
configured LLM engine is asked when the caller does not say (``use_rag=None``) is
the Genesis's ``use_rag``: ``None`` asks it when one is configured (what
``genesis impact`` and ``genesis mcp`` do), ``False`` (the library's default, as
seed 000's ``GenesisService``) asks it only when told.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.impact import ImpactOptions, ImpactResult
    from genesis_git.providers.llm import Engine
    from genesis_git.rag.impact_rag import ImpactRAG


class Impact:
    """``genesis impact`` (and the MCP tool ``impact``); with an ImpactRAG given as ``rag``,
    that scope's text is investigated instead of the repository (text kept outside git)."""

    def __init__(self, workspace: Workspace, *, use_rag: bool | None = False,
                 rag: ImpactRAG | None = None, engine: str | Engine | None = None,
                 scope: str | None = None, keep_corpus: bool = False):
        self._ws = workspace
        self.use_rag = use_rag
        self.rag = rag
        self.engine = engine
        self.scope = scope
        # a long-lived caller (genesis mcp) keeps the corpus while the store is unchanged
        self.keep_corpus = keep_corpus
        self._kept: tuple[Any, Any] | None = None

    def options(self, *, k: int = 10, graph: bool = True, history: bool = True,
                stories: bool = True) -> ImpactOptions:
        """The options of an investigation (nothing is read: a bad requirement is the first
        error).  For a repository, the prompt's chunks are always the setting ``impact.k``."""
        from genesis_git.impact import ImpactOptions

        return ImpactOptions(k=k, graph=graph, history=history, stories=stories)

    def run(self, requirement: str, options: ImpactOptions | None = None, *,
            use_rag: bool | None = None, engine: str | Engine | None = None,
            prompt_only: bool = False, refresh: bool = True,
            announce: Callable[[str], None] | None = None) -> ImpactResult:
        """The impact result with its warnings, suggestions and (for RAG or ``prompt_only``)
        the prompt: the requirement checked first, the session refreshed (or started, said
        through ``announce``), then the investigation."""
        from dataclasses import replace

        from genesis_git.impact import ImpactAgent, ImpactOptions, run

        chosen = engine if engine is not None else self.engine
        wanted = use_rag if use_rag is not None else self.use_rag
        if self.rag is not None:
            agent = ImpactAgent(rag=self.rag, engine=chosen if chosen is not None else "none",
                                options=options or ImpactOptions())
            return agent.investigate(requirement, scope=self.scope, use_rag=bool(wanted),
                                     prompt_only=prompt_only)
        ctx = self._ws.caught_up()
        opts = replace(options if options is not None else self.options(),
                       chunks=ctx.config.settings.impact.k, engine=chosen, prompt_only=prompt_only,
                       rag=None if wanted is None else bool(wanted) and not prompt_only)
        return run(ctx, requirement, opts, refresh=refresh, announce=announce,
                   corpus=self._corpus)

    def prompt(self, requirement: str, options: ImpactOptions | None = None) -> str:
        """The LLM prompt that ``use_rag`` would send, for any LLM."""
        prompt = self.run(requirement, options, prompt_only=True).prompt
        assert prompt is not None
        return prompt

    def _corpus(self, session_id: str) -> Any:
        """The session's impact corpus, kept while the store is unchanged (``keep_corpus``)."""
        if not self.keep_corpus:
            return None
        from genesis_git.impact.corpus_session import load_context_corpus

        ctx = self._ws.caught_up()
        conn = ctx.conn
        key = (session_id, int(conn.execute("PRAGMA data_version").fetchone()[0]),
               conn.total_changes)
        if self._kept is None or self._kept[0] != key:
            self._kept = None  # let the old one go before the new one is read
            corpus = load_context_corpus(ctx, session_id)
            corpus.keep = True  # so it keeps its graph and file flags too
            key = (session_id, int(conn.execute("PRAGMA data_version").fetchone()[0]),
                   conn.total_changes)  # reading may have prepared facts: that is the new state
            self._kept = (key, corpus)
        return self._kept[1]
