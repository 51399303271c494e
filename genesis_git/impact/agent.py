"""Seed 000's impact agent and the earlier entry points, as thin wrappers over
:func:`genesis_git.impact.pipeline.run`.

:class:`ImpactAgent` is the library API's agent (docs/explanation/architecture.md). It
reads either a repository's session index
(``context=``) or an :class:`~genesis_git.rag.impact_rag.ImpactRAG` scope
(``rag=``); :meth:`ImpactAgent.run_impact` returns the result dict of
:attr:`genesis_git.impact.result.ImpactResult.result`, and an engine is asked
only with ``use_rag=True``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from genesis_git.impact.analyse import analyse_requirement
from genesis_git.impact.corpus import Corpus
from genesis_git.impact.corpus_session import load_context_corpus
from genesis_git.impact.corpus_text import DEFAULT_SCOPE
from genesis_git.impact.pipeline import ImpactOptions, Scope, run, suggest_terms
from genesis_git.impact.result import ImpactResult
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.providers.llm import Engine, EngineError, get_engine

if TYPE_CHECKING:
    from genesis_git.config.settings import Config
    from genesis_git.index.session import Context
    from genesis_git.rag.impact_rag import ImpactRAG

__all__ = ["ImpactAgent", "ImpactOptions", "ImpactReport", "analyse_requirement", "investigate",
           "load_context_corpus", "suggest_terms"]

ImpactReport = ImpactResult  # the earlier name of the result


class _AgentEngine:
    """The engine as the agent reaches it: through :meth:`ImpactAgent._engine_invoke`."""

    name = "agent"

    def __init__(self, agent: ImpactAgent) -> None:
        self.agent = agent

    def complete(self, prompt: str) -> str:
        return self.agent._engine_invoke(prompt)


class ImpactAgent:
    """Investigate the impact of a requirement on a repository or on an ImpactRAG scope."""

    def __init__(self, rag: ImpactRAG | None = None, engine: str | Engine | None = "none", *,
                 context: Context | None = None, config: Config | None = None,
                 options: ImpactOptions | None = None, corpus: Corpus | None = None):
        self.rag = rag
        self.context = context
        self.loaded = corpus  # a corpus the caller keeps: used for its own session
        self.config = config if config is not None else (context.config if context else None)
        if engine is None or isinstance(engine, str):
            self.engine: Engine | None = get_engine(engine, self.config)
        else:
            self.engine = engine
        self.options = options or ImpactOptions()
        self.warnings: list[str] = []
        self.last_report: ImpactResult | None = None

    def _engine_invoke(self, prompt: str) -> str:
        """Send the prompt to the engine and return its raw answer."""
        if self.engine is None:
            raise EngineError("no LLM engine is configured (impact.engine is \"none\")",
                              hint="set --engine, or pipe `genesis impact --prompt` into any LLM")
        return self.engine.complete(prompt)

    def investigate(self, requirement: str, scope: str | None = None, use_rag: bool = False,
                    k: int | None = None, prompt_only: bool = False) -> ImpactResult:
        """Rank, then (with ``use_rag``) ask the engine; ``prompt_only`` stops after the prompt."""
        opts = replace(self.options, k=self.options.k if k is None else k, rag=use_rag,
                       engine=_AgentEngine(self), prompt_only=prompt_only)
        if self.context is not None:
            report = run(self.context, requirement, opts, session_id=scope, corpus=self.loaded)
        elif self.rag is not None:
            report = run(Scope(self.rag, scope or DEFAULT_SCOPE, self.config), requirement, opts)
        else:
            if opts.k < 1:
                raise UsageError(f"-k must be at least 1 (got {opts.k})")
            analyse_requirement(requirement)
            raise GenesisError("ImpactAgent needs a repository context or an ImpactRAG to read from")
        self.warnings = report.warnings
        self.last_report = report
        return report

    def run_impact(self, requirement: str, scope: str | None = None, use_rag: bool = False,
                   k: int | None = None) -> dict[str, Any]:
        """The result dict (the library API's entry point); warnings stay in ``self.warnings``."""
        return self.investigate(requirement, scope=scope, use_rag=use_rag, k=k).result

    def build_prompt(self, requirement: str, scope: str | None = None, k: int | None = None) -> str:
        prompt = self.investigate(requirement, scope=scope, k=k, prompt_only=True).prompt
        assert prompt is not None
        return prompt


def investigate(ctx: Context, requirement: str, *, session_id: str | None = None,
                use_rag: bool = False, engine: str | Engine | None = None,
                options: ImpactOptions | None = None, prompt_only: bool = False,
                corpus: Corpus | None = None) -> ImpactResult:
    """:func:`~genesis_git.impact.pipeline.run` with the earlier arguments."""
    opts = replace(options or ImpactOptions(), rag=use_rag, engine=engine,
                   prompt_only=prompt_only)
    return run(ctx, requirement, opts, session_id=session_id, corpus=corpus)
