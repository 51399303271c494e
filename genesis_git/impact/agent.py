"""Impact investigation: the deterministic cross-reference, and the optional LLM (RAG) path.

:class:`ImpactAgent` is the library API's agent (docs/explanation/architecture.md). It
reads either a repository's session index (``context=``) or an
:class:`~genesis_git.rag.impact_rag.ImpactRAG` scope (``rag=``), and
:meth:`ImpactAgent.run_impact` returns the result dict described in
:mod:`genesis_git.impact.result`.

* ``use_rag=False`` — the cross-reference: requirement → terms, identifiers
  and tables → ranked files (text, path, definitions, reference graph,
  co-change, stories) → impacts with evidence lines.  Same input, same output.
* ``use_rag=True`` — the top chunks go into a prompt, the engine answers with
  JSON ``impacts``.  An engine that fails, times out or answers badly leaves
  the cross-reference result in place, with a warning; it never makes the
  result empty.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from genesis_git.impact.corpus import Corpus, corpus_from_rag, load_prepared_corpus
from genesis_git.impact.prompt import PromptChunk, build_prompt, parse_answer
from genesis_git.impact.rank import Ranking, RankOptions, Weights, rank
from genesis_git.impact.result import best_chunk, cross_reference_result, evidence_lines
from genesis_git.impact.signals import QueryInfo, analyze
from genesis_git.kernel.errors import GenesisError, UsageError
from genesis_git.providers.llm import Engine, EngineError, get_engine
from genesis_git.text.querybounds import bound_query
from genesis_git.text.quoting import quoted
from genesis_git.text.tokens import SynonymTable, synonym_table

if TYPE_CHECKING:
    from genesis_git.config.settings import Config
    from genesis_git.index.session import Context
    from genesis_git.rag.impact_rag import ImpactRAG

LLM_WEIGHT = 0.5
DEFAULT_SCOPE = "default"


@dataclass
class ImpactOptions:
    k: int = 10  # files (and file impacts) in the result
    chunks: int = 12  # chunks in the prompt
    graph: bool = True
    history: bool = True
    stories: bool = True
    weights: Weights = field(default_factory=Weights)


@dataclass
class ImpactReport:
    """A result plus what the caller may want to show around it."""

    result: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    prompt: str | None = None
    matched_terms: list[str] = field(default_factory=list)

    @property
    def matched(self) -> bool:
        return bool(self.result["files"] or self.result["impacts"])


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
        self.last_report: ImpactReport | None = None

    # -- the engine -------------------------------------------------------
    def _engine_invoke(self, prompt: str) -> str:
        """Send the prompt to the engine and return its raw answer."""
        if self.engine is None:
            raise EngineError("no LLM engine is configured (impact.engine is \"none\")",
                              hint="set --engine, or pipe `genesis impact --prompt` into any LLM")
        return self.engine.complete(prompt)

    # -- inputs -------------------------------------------------------------
    def _synonyms(self) -> SynonymTable | None:
        if self.config is None:
            return None
        return synonym_table(dict(self.config.settings.text.synonyms))

    def _session(self, scope: str | None) -> str:
        from genesis_git.index.session import ensure_session

        assert self.context is not None
        return scope or ensure_session(self.context, refresh=False)

    def corpus(self, scope: str | None = None) -> Corpus:
        if self.context is not None:
            session = self._session(scope)
            if self.loaded is not None and self.loaded.session_id == session:
                return self.loaded
            return load_context_corpus(self.context, session)
        if self.rag is not None:
            return corpus_from_rag(self.rag, scope or DEFAULT_SCOPE)
        raise GenesisError("ImpactAgent needs a repository context or an ImpactRAG to read from")

    def _history_and_stories(self) -> tuple[Any, Any]:
        history = stories = None
        if self.context is None:
            return None, None
        from genesis_git.impact.history import load_history, story_records

        if self.options.history:
            history = load_history(self.context.conn, self.context.repo)
        if self.options.stories:
            stories = story_records(self.context.conn)
        return history, stories

    # -- the work -------------------------------------------------------------
    def analyse(self, requirement: str) -> QueryInfo:
        return analyse_requirement(requirement, self._synonyms())

    def _rank(self, q: QueryInfo, corpus: Corpus) -> Ranking:
        history, stories = self._history_and_stories()
        opts = RankOptions(graph=self.options.graph, history=self.options.history,
                           stories=self.options.stories, weights=self.options.weights)
        return rank(corpus, q, opts, history, stories)

    def _prompt_chunks(self, q: QueryInfo, corpus: Corpus, ranking: Ranking, scope: str | None,
                       requirement: str) -> list[PromptChunk]:
        n = self.options.chunks
        if self.context is None and self.rag is not None:
            out = []
            for hit in self.rag.retrieve_chunks(scope or DEFAULT_SCOPE, requirement, n):
                path = str(hit.meta.get("path", "(unnamed)"))
                text = hit.chunk.split("\n", 1)[1] if hit.chunk.startswith("[") else hit.chunk
                start = int(hit.meta.get("start_line", 1))
                out.append(PromptChunk(path, start, int(hit.meta.get("end_line", start)), text,
                                       corpus.files[path].artifact_type if path in corpus.files
                                       else ""))
            return out
        out = []
        for f in ranking.files[:n]:
            doc = corpus.files[f.path]
            chunk = best_chunk(doc, q.weights) or (doc.chunks[0] if doc.chunks else None)
            if chunk is not None:
                out.append(PromptChunk(f.path, chunk.start_line, chunk.end_line, chunk.text,
                                       doc.artifact_type))
        return out

    def investigate(self, requirement: str, scope: str | None = None, use_rag: bool = False,
                    k: int | None = None, prompt_only: bool = False) -> ImpactReport:
        """Rank, then (with ``use_rag``) ask the engine; ``prompt_only`` stops after the prompt."""
        k = self.options.k if k is None else k
        if k < 1:
            raise UsageError(f"-k must be at least 1 (got {k})")
        q = self.analyse(requirement)
        corpus = self.corpus(scope)
        ranking = self._rank(q, corpus)
        corpus.hydrate([f.path for f in ranking.files[:max(k, self.options.chunks)]])
        result = cross_reference_result(requirement, q, corpus, ranking, k)
        report = ImpactReport(result, warnings=list(q.notes), matched_terms=ranking.matched_terms)
        if not ranking.files:
            report.suggestions = suggest_terms(q, corpus)
        if use_rag or prompt_only:
            chunks = self._prompt_chunks(q, corpus, ranking, scope, requirement)
            candidates = [(f.path, f.score) for f in ranking.files[:k]]
            report.prompt = build_prompt(bound_query(requirement)[0], chunks, candidates)
            if use_rag and not prompt_only:
                self._ask_engine(report, q, corpus, ranking, k)
        self.warnings = report.warnings
        self.last_report = report
        return report

    def _ask_engine(self, report: ImpactReport, q: QueryInfo, corpus: Corpus, ranking: Ranking,
                    k: int) -> None:
        assert report.prompt is not None
        try:
            answer = self._engine_invoke(report.prompt)
            impacts = parse_answer(answer)
        except GenesisError as exc:
            report.warnings.append(f"{exc.message}; showing the cross-reference result instead")
            return
        except Exception as exc:  # an engine must never crash the command
            report.warnings.append(f"the engine failed ({type(exc).__name__}: {exc}); "
                                   "showing the cross-reference result instead")
            return
        report.result = merge_llm(report.result, impacts, q, corpus, ranking, k)
        unknown = sorted({i["path"] for i in impacts if i["path"] and i["path"] not in corpus.files})
        if unknown:
            report.warnings.append("the engine named paths that are not in the index: "
                                   + ", ".join(unknown[:5]))

    def run_impact(self, requirement: str, scope: str | None = None, use_rag: bool = False,
                   k: int | None = None) -> dict[str, Any]:
        """The result dict (the library API's entry point); warnings stay in ``self.warnings``."""
        return self.investigate(requirement, scope=scope, use_rag=use_rag, k=k).result

    def build_prompt(self, requirement: str, scope: str | None = None, k: int | None = None) -> str:
        prompt = self.investigate(requirement, scope=scope, k=k, prompt_only=True).prompt
        assert prompt is not None
        return prompt


def load_context_corpus(ctx: Context, session_id: str) -> Corpus:
    """The prepared corpus of a session: the one place impact state is loaded from the store.

    Term statistics come from the session's search base (built, streamed, if
    missing), tables, methods and imports from the blobs' prepared facts; a
    long-lived process may keep the result while the store is unchanged.
    """
    from genesis_git.impact.stats import TextStats
    from genesis_git.providers.embedders import embedder_id, get_embedder
    from genesis_git.search.session_index import session_index

    idx = session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)))
    return load_prepared_corpus(ctx.conn, session_id, TextStats(idx))


def analyse_requirement(requirement: str, synonyms: SynonymTable | None = None) -> QueryInfo:
    """The analysed requirement; :class:`UsageError` when it is empty or only stopwords."""
    if not requirement.strip():
        raise UsageError("the requirement is empty",
                         hint='e.g. genesis impact "订单表新增字段 discount_code"')
    q = analyze(requirement, synonyms)
    if q.empty:
        raise UsageError(f"the requirement {quoted(requirement)} has no searchable terms "
                         "(only stopwords or punctuation)")
    return q


def merge_llm(xref: dict[str, Any], impacts: list[dict[str, Any]], q: QueryInfo, corpus: Corpus,
              ranking: Ranking, k: int) -> dict[str, Any]:
    """The engine's impacts, scored by their order, and the files re-ranked with an ``llm`` signal."""
    by_path = {f.path: f for f in ranking.files}
    n = len(impacts)
    llm_score: dict[str, float] = {}
    out_impacts = []
    for i, item in enumerate(impacts):
        s = round(LLM_WEIGHT * (n - i) / n, 4)
        path = item["path"]
        base = by_path.get(path)
        reasons = dict(base.reasons) if base else {}
        reasons["llm"] = s
        if path:
            llm_score[path] = max(llm_score.get(path, 0.0), s)
        evidence = item["evidence"]
        if not evidence and path in corpus.files:
            corpus.hydrate([path])
            evidence = evidence_lines(corpus.files[path], q.weights)
        out_impacts.append({**item, "lines": item["lines"] or [], "evidence": evidence,
                            "score": round(sum(reasons.values()), 4), "reasons": reasons})
    files: list[tuple[float, str, dict[str, float]]] = []
    for f in ranking.files:
        reasons = dict(f.reasons)
        if f.path in llm_score:
            reasons["llm"] = llm_score[f.path]
        files.append((round(sum(reasons.values()), 4), f.path, reasons))
    for path, s in llm_score.items():
        if path in corpus.files and path not in by_path:
            files.append((s, path, {"llm": s}))
    files.sort(key=lambda x: (-x[0], x[1]))
    return {"requirement": xref["requirement"], "mode": "rag", "impacts": out_impacts,
            "files": [{"path": p, "score": s, "reasons": r} for s, p, r in files[:k]]}


def suggest_terms(q: QueryInfo, corpus: Corpus, n: int = 5) -> list[str]:
    """Close terms from the corpus vocabulary for a requirement that matched nothing.

    Only the ``2 * n`` weightiest terms are looked up, each against the words of
    a length that can reach the cutoff (the others could not match anyway).
    """
    vocab = corpus.vocabulary()
    by_length = corpus.vocabulary_by_length()
    out: list[str] = []
    for term in sorted(q.weights, key=lambda t: (-q.weights[t], t))[: 2 * n]:
        size = len(term)
        # difflib's ratio is at most 2 * min(a, b) / (a + b): within 0.7 only for these lengths
        keys = [k for length in range(math.ceil(size * 0.7 / 1.3 - 1e-9),
                                       math.floor(size * 1.3 / 0.7 + 1e-9) + 1)
                for k in by_length.get(length, ())]
        for key in difflib.get_close_matches(term, keys, n=2, cutoff=0.7):
            word = vocab[key]
            near = any(word.startswith(o) and len(word) - len(o) <= 2 for o in out)
            if word not in out and key != term and not near:  # not both address and addresse
                out.append(word)
    return out[:n]


def investigate(ctx: Context, requirement: str, *, session_id: str | None = None,
                use_rag: bool = False, engine: str | Engine | None = None,
                options: ImpactOptions | None = None, prompt_only: bool = False,
                corpus: Corpus | None = None) -> ImpactReport:
    """The impact of ``requirement`` on the repository of ``ctx`` (the CLI's one core call);
    ``corpus`` is the session's corpus when the caller keeps one."""
    agent = ImpactAgent(engine=engine, context=ctx, options=options, corpus=corpus)
    return agent.investigate(requirement, scope=session_id, use_rag=use_rag,
                             prompt_only=prompt_only)
