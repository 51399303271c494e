"""Impact in one pass: analyse → corpus → signals → combine → (LLM rerank) → evidence → result.

    from genesis_git.impact import ImpactOptions, run

    result = run(ctx, "订单表新增字段 discount_code", ImpactOptions(k=5))
    result.files, result.impacts, result.warnings, result.to_json()

:func:`run` is the one entry.  ``target`` is what to read: a repository's
:class:`~genesis_git.index.session.Context` (its session index) or a
:class:`Scope` of an :class:`~genesis_git.rag.impact_rag.ImpactRAG`.  Each
station is entered once, in order: the requirement is analysed (bad input
fails before any indexing), the corpus is prepared whole, the signals read it,
:func:`~genesis_git.impact.combine.rank` weighs them, an engine (when asked)
adds its ``llm`` signal, and the evidence is computed for the final ranking
only.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from genesis_git.impact import evidence, rerank
from genesis_git.impact.analyse import QueryInfo, analyse_requirement
from genesis_git.impact.combine import RankOptions, Weights, rank
from genesis_git.impact.confidence import WEAK_WARNING, confidences, weak_evidence
from genesis_git.impact.corpus import Corpus
from genesis_git.impact.prompt import build_prompt
from genesis_git.impact.result import ImpactResult, RankedFile
from genesis_git.kernel.errors import UsageError
from genesis_git.providers.llm import Engine, get_engine
from genesis_git.text.querybounds import bound_query
from genesis_git.text.tokens import synonym_table

if TYPE_CHECKING:
    from genesis_git.config.settings import Config
    from genesis_git.impact.history import History
    from genesis_git.index.session import Context
    from genesis_git.rag.impact_rag import ImpactRAG

DEFAULT_CHUNKS = 12  # the ``impact.k`` setting's default
Stories = list[tuple[str, str, list[str]]]  # (story id, text, paths) of the ledger


@dataclass
class ImpactOptions:
    """What an investigation does; the CLI, the MCP server and the library build the same."""

    k: int = 10  # files (and file impacts) in the result
    chunks: int | None = None  # chunks in the prompt (None: the ``impact.k`` setting)
    graph: bool = True
    history: bool = True
    stories: bool = True
    weights: Weights = field(default_factory=Weights)
    rag: bool | None = None  # ask the engine (None: when one is configured)
    engine: str | Engine | None = None  # a name, or an engine (None: ``impact.engine``)
    prompt_only: bool = False  # build the prompt, ask nothing
    ablate: frozenset[str] = frozenset()  # signals switched off (benchmarks: combine.ABLATE)

    def rank_options(self) -> RankOptions:
        return RankOptions(graph=self.graph, history=self.history, stories=self.stories,
                           weights=self.weights, ablate=self.ablate)


@dataclass
class Scope:
    """Text kept outside a repository: a scope of an ImpactRAG."""

    rag: ImpactRAG
    name: str = "default"
    config: Config | None = None


KeptCorpus = Corpus | Callable[[str], Corpus | None] | None


def run(target: Context | Scope, requirement: str, options: ImpactOptions | None = None, *,
        session_id: str | None = None, corpus: KeptCorpus = None, refresh: bool = False,
        announce: Callable[[str], None] | None = None) -> ImpactResult:
    """The impact of ``requirement`` on ``target``.

    For a repository, ``session_id`` names the session (default: the active
    one, refreshed first with ``refresh``, started when there is none, said
    through ``announce``); ``corpus`` is a prepared corpus the caller keeps,
    or a function of the session id that gives one (used for its own session
    only; otherwise the session's corpus is loaded).  The requirement is
    analysed before any of that, so bad input fails before any indexing.
    """
    opts = options or ImpactOptions()  # analyse
    if opts.k < 1:
        raise UsageError(f"-k must be at least 1 (got {opts.k})")
    config = target.config
    q = analyse_requirement(
        requirement, synonym_table(dict(config.settings.text.synonyms)) if config is not None else None)
    engine = (get_engine(opts.engine, config) if opts.engine is None or isinstance(opts.engine, str)
              else opts.engine)
    ask = opts.rag if opts.rag is not None else engine is not None
    chunks = opts.chunks if opts.chunks is not None else (
        config.settings.impact.k if config is not None else DEFAULT_CHUNKS)
    corpus, history, stories = _prepare(target, opts, session_id, corpus, refresh, announce)
    ranking = rank(corpus, q, opts.rank_options(), history, stories)  # signals, combined
    out = ImpactResult(requirement, "cross-reference", warnings=list(q.notes),
                       matched_terms=ranking.matched_terms)
    docs = corpus.read(f.path for f in ranking.files[:opts.k])
    answer = None
    if ask or opts.prompt_only:  # the LLM, optional
        top = ranking.files[:chunks]
        docs.update(corpus.read(f.path for f in top if f.path not in docs))
        excerpts = corpus.excerpts(requirement, q.weights, [docs[f.path] for f in top], chunks)
        candidates = [(f.path, f.score) for f in ranking.files[:opts.k]]
        out.prompt = build_prompt(bound_query(requirement)[0], excerpts, candidates)
        if ask and not opts.prompt_only:
            answer = rerank.ask(engine, out.prompt, out.warnings)
    if answer is None:  # evidence, once, for the final ranking
        shown = ranking.files[:opts.k]
        conf = confidences(shown)
        out.impacts = evidence.cross_reference_impacts(q, ranking.tables, shown, docs,
                                                       ranking.anchors, conf)
    else:
        scores = rerank.llm_signal(answer)
        shown = rerank.rerank(ranking, answer, scores, corpus.files, opts.k)
        wanted = {i["path"] for i in answer if not i["evidence"]} - docs.keys()
        docs.update(corpus.read(sorted(wanted)))
        out.mode = "rag"
        out.impacts = evidence.engine_impacts(answer, scores, ranking.files, q, docs)
        unknown = rerank.unknown_paths(answer, corpus.files)
        if unknown:
            out.warnings.append(unknown)
        conf = confidences(shown)
    out.files = [RankedFile(f.path, f.score, dict(f.reasons), c) for f, c in zip(shown, conf,
                                                                                 strict=True)]
    if answer is not None:  # an engine's impacts: the confidence of their file
        by_path = {f.path: f.confidence for f in out.files}
        for item in out.impacts:
            item.confidence = by_path.get(item.path, 0.0)
    if shown and weak_evidence(shown, conf, ranking.matched_terms, len(q.weights)):
        out.weak_evidence = True
        out.warnings.append(WEAK_WARNING)
    if not ranking.files:
        out.suggestions = suggest_terms(q, corpus)
    return out


def _prepare(target: Context | Scope, opts: ImpactOptions, session_id: str | None,
             kept: KeptCorpus, refresh: bool, announce: Callable[[str], None] | None
             ) -> tuple[Corpus, History | None, Stories | None]:
    """The corpus, whole, and the history and stories a repository adds."""
    if isinstance(target, Scope):
        from genesis_git.impact.corpus_text import corpus_from_rag

        return corpus_from_rag(target.rag, target.name), None, None
    from genesis_git.impact.corpus_session import load_context_corpus
    from genesis_git.impact.history import load_history, story_records
    from genesis_git.index.session import ensure_session

    sid = session_id or ensure_session(target, refresh=refresh, announce=announce)
    if kept is not None and not isinstance(kept, Corpus):
        kept = kept(sid)
    corpus = kept if kept is not None and kept.session_id == sid else load_context_corpus(target,
                                                                                         sid)
    history = load_history(target.conn, target.repo) if opts.history else None
    stories = story_records(target.conn) if opts.stories else None
    return corpus, history, stories


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
