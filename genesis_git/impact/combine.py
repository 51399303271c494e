"""The fourth station of impact: weigh the signals, add them up, rank the files, say why.

The score of a file is a weighted sum of signals (:mod:`genesis_git.impact.signals`),
each scaled to 0..1 over the corpus, then multiplied by a penalty for lock,
vendored and generated files.  ``reasons`` holds every signal's contribution
(and the penalty as a negative number), so the reasons of a file add up to
its score.  The ``graph`` and ``cochange`` signals start from *seeds*: the
best files on ``text``, ``path``, ``named`` and ``definition``.

A changelog gets ``text`` and ``path`` only: it is never pushed up because it
changes often.  ``recent`` (the files of the last commits: the work in progress)
is left out for a bug report, which is about what was released.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from genesis_git.impact.analyse import QueryInfo
from genesis_git.impact.anchors import (
    anchor_tokens,
    bridge_scores,
    feedback_scores,
    never_a_result,
    prior_factor,
    traceback_scores,
    variable_scores,
)
from genesis_git.impact.corpus import Corpus
from genesis_git.impact.graph import Graph, Table
from genesis_git.impact.history import (
    History,
    churn_scores,
    cochange_scores,
    recent_scores,
    similar_commit_scores,
    story_scores,
)
from genesis_git.impact.kinds import penalty_factor
from genesis_git.impact.signals import (
    definition_scores,
    field_idents,
    field_scores,
    graph_scores,
    named_scores,
    path_scores,
    with_compounds,
)
from genesis_git.index.chunk import PROSE_EXTENSIONS

FEEDBACK_POOL = 200  # the files best on text that feedback may reach
SEED_SIGNALS = {"text", "path", "named", "definition", "traceback", "bridge"}
SIGNALS = ("text", "path", "named", "definition", "traceback", "bridge", "graph", "feedback",
           "fields", "cochange", "commits", "churn", "recent", "story")
# what ``ablate`` switches off: a benchmark's names -> the signals
ABLATE = {"lexical": {"text"}, "path": {"path", "named"}, "symbols": {"definition"},
          "graph": {"graph", "fields"}, "history": {"commits", "churn"}, "recent": {"recent"},
          "cochange": {"cochange"}, "feedback": {"feedback"}, "traceback": {"traceback"},
          "bridge": {"bridge"}, "prior": {"prior"}}


@dataclass
class Weights:
    text: float = 1.0
    chunk_share: float = 0.35  # share of the best chunk in the text signal
    path: float = 0.35
    named: float = 0.5  # the requirement names the file (core.py, src/x/y.py)
    definition: float = 0.2
    graph: float = 0.15
    traceback: float = 0.6  # a traceback's frame or a dotted module name names the file
    bridge: float = 0.8  # share of a matching test file's score its module gets
    feedback: float = 0.2  # one import away from the best files, and matching the text
    fields: float = 0.35  # files that mention most columns of a table the query names
    fields_schema: float = 1.0  # the same when the requirement changes a field of that table
    prose_fields: float = 0.3  # documents mirroring the row *should* change, code *must*
    cochange: float = 0.25
    churn: float = 0.05
    recent: float = 0.3  # files of the last commits (the work in progress); not for bug reports
    commits: float = 0.3  # files of past commits whose messages are like the requirement
    commits_top: int = 20
    story: float = 0.3
    seeds: int = 8  # files whose neighbours the graph and co-change signals look at
    doc_factor: float = 1.0  # multiplier for REQ/ARCH/OTHER documents


@dataclass
class RankOptions:
    graph: bool = True
    history: bool = True
    stories: bool = True
    weights: Weights = field(default_factory=Weights)
    ablate: frozenset[str] = frozenset()  # names of ABLATE: signals switched off (benchmarks)

    def off(self) -> set[str]:
        return {s for name in self.ablate for s in ABLATE.get(name, {name})}


@dataclass
class FileScore:
    path: str
    score: float
    reasons: dict[str, float]
    flags: list[str] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # signal -> evidence (paths, ids)


@dataclass
class Ranking:
    files: list[FileScore]
    matched_terms: list[str]
    tables: list[Table]
    graph: Graph | None
    anchors: set[str] = field(default_factory=set)  # query tokens that stand for symbols


def _normalise(values: dict[str, float]) -> dict[str, float]:
    top = max(values.values(), default=0.0)
    if top <= 0:
        return {}
    return {p: v / top for p, v in values.items() if v > 0}


def _seeds(base: dict[str, float], flags: dict[str, list[str]], n: int) -> dict[str, float]:
    """The best files on text, path and definition, weighted relative to the best one."""
    ranked = sorted(((s, p) for p, s in base.items() if s > 0 and not flags[p]),
                    key=lambda x: (-x[0], x[1]))[:n]
    if not ranked:
        return {}
    top = ranked[0][0]
    return {p: s / top for s, p in ranked}


def rank(corpus: Corpus, q: QueryInfo, opts: RankOptions, history: History | None = None,
         stories: list[tuple[str, str, list[str]]] | None = None) -> Ranking:
    """Score every file of ``corpus``; the best first, ties by path."""
    w = opts.weights
    off = opts.off()
    if "path" not in off:
        q = with_compounds(corpus, q)
    file_text, chunk_best, matched, file_terms = corpus.text_scores(q.weights)
    text_n = _normalise(file_text)
    chunk_n = _normalise(chunk_best)
    path_n = _normalise(path_scores(corpus, q))
    named = named_scores(corpus, q)
    graph = None
    if opts.graph or q.mentions_table or q.ident_tokens or q.issue.code_tokens:
        graph = corpus.graph(set(q.weights))
    defs_n: dict[str, float] = {}
    tables: list[Table] = []
    anchors: set[str] = set()
    if graph is not None:
        anchors = anchor_tokens(q, graph, len(corpus.files))
        defs, tables = definition_scores(corpus, graph, q,
                                         anchors)
        defs_n = _normalise(defs)
    trace = traceback_scores(q, list(corpus.files)) if q.issue.frames or q.issue.modules else {}
    used: dict[str, str] = {}  # a file that uses the variable the error names -> the name
    for p, (v, name) in variable_scores(q, corpus, file_terms).items():
        if v > trace.get(p, 0.0):
            trace[p] = v
            used[p] = name
    flags = corpus.flags
    reasons: dict[str, dict[str, float]] = {p: {} for p in corpus.files}
    notes: dict[str, dict[str, list[str]]] = {p: {} for p in corpus.files}
    for p in corpus.files:
        r = reasons[p]
        t = (1 - w.chunk_share) * text_n.get(p, 0.0) + w.chunk_share * chunk_n.get(p, 0.0)
        if t:
            r["text"] = w.text * t
        if path_n.get(p):
            r["path"] = w.path * path_n[p]
        if named.get(p):
            r["named"] = w.named * named[p]
        if defs_n.get(p):
            r["definition"] = w.definition * defs_n[p]
        if trace.get(p):
            r["traceback"] = w.traceback * trace[p]
            if p in used:
                notes[p]["traceback"] = [used[p]]  # the variable it uses
    _drop(reasons, off)
    candidates = [p for p in corpus.files if "changelog" not in flags[p]]
    use_history = opts.history and history is not None and bool(history.transactions)
    if use_history and w.commits and "commits" not in off:
        assert history is not None
        sim = similar_commit_scores(history, q.weights, candidates, top=w.commits_top)
        for p, v in _normalise({p: s for p, (s, _) in sim.items()}).items():
            reasons[p]["commits"] = w.commits * v
            notes[p]["commits"] = sim[p][1][:2]
    base = {p: sum(v for k, v in r.items() if k in SEED_SIGNALS) for p, r in reasons.items()}
    if graph is not None and "bridge" not in off:
        for p, (v, test) in bridge_scores(base, graph, set(corpus.files)).items():
            lift = w.bridge * v - base.get(p, 0.0)  # a floor: a share of its test's score
            if lift > 0 and "changelog" not in flags[p]:
                reasons[p]["bridge"] = lift
                notes[p]["bridge"] = [test]
                base[p] = base.get(p, 0.0) + lift
    seeds = _seeds(base, flags, w.seeds)
    if opts.graph and graph is not None:
        raw, why = graph_scores(graph, q, seeds, flags, file_terms)
        for p, v in raw.items():
            reasons[p]["graph"] = reasons[p].get("graph", 0.0) + w.graph * min(1.0, v)
            notes[p]["graph"] = [s for _, s in sorted(why[p], key=lambda x: (-x[0], x[1]))][:3]
        fields = field_scores(corpus, tables)
        schema_change = bool(tables) and (q.mentions_field or bool(field_idents(q, graph, tables)))
        weight = w.fields_schema if schema_change else w.fields
        for p, share in fields.items():
            if "changelog" in flags[p]:
                continue
            prose = "." + p.rsplit(".", 1)[-1].lower() in PROSE_EXTENSIONS
            reasons[p]["fields"] = weight * share * (w.prose_fields if prose else 1.0)
            notes[p]["fields"] = [t.name for t in tables]
        if "feedback" not in off and w.feedback and q.issue.bug_report:
            near = dict(sorted(text_n.items(), key=lambda x: (-x[1], x[0]))[:FEEDBACK_POOL])
            for p, (v, seed) in feedback_scores(seeds, graph, near).items():
                if v and not flags[p]:
                    reasons[p]["feedback"] = w.feedback * v
                    notes[p]["feedback"] = [seed]
        _drop(reasons, off)
    if use_history:
        assert history is not None
        # co-change spreads a file's score to its partners: what a change of several files
        # needs, while a bug report is mostly fixed in one file (as ``recent``, below)
        co = {} if q.issue.bug_report else cochange_scores(history, seeds, candidates)
        co_n = _normalise({p: s for p, (s, _) in co.items()})
        for p, v in co_n.items():
            reasons[p]["cochange"] = w.cochange * v
            notes[p]["cochange"] = co[p][1][:3]
        churn_n = _normalise(churn_scores(history, candidates))
        for p, v in churn_n.items():
            if w.churn and v and reasons[p]:  # a prior only for files the query reached
                reasons[p]["churn"] = w.churn * v
        reached = any(reasons.values())  # a requirement that matches nothing finds nothing
        if w.recent and "recent" not in off and not q.issue.bug_report and reached:
            rec = recent_scores(history, candidates)
            for p, v in _normalise({p: s for p, (s, _) in rec.items()}).items():
                reasons[p]["recent"] = w.recent * v
                notes[p]["recent"] = rec[p][1][:2]
    if opts.stories and stories:
        st = story_scores(stories, q.weights, candidates)
        st_n = _normalise({p: s for p, (s, _) in st.items()})
        for p, v in st_n.items():
            reasons[p]["story"] = w.story * v
            notes[p]["story"] = st[p][1]
    _drop(reasons, off)
    prior = (lambda p: 1.0) if "prior" in off else (lambda p: prior_factor(p, q, flags[p]))
    return Ranking(_scored(corpus, reasons, notes, flags, w, prior), sorted(matched), tables,
                   graph, anchors)


def _drop(reasons: dict[str, dict[str, float]], off: set[str]) -> None:
    """Switch the signals of ``off`` off (an ablation)."""
    if off:
        for r in reasons.values():
            for k in off & r.keys():
                del r[k]


def _scored(corpus: Corpus, reasons: dict[str, dict[str, float]],
            notes: dict[str, dict[str, list[str]]], flags: dict[str, list[str]],
            w: Weights, prior: Callable[[str], float]) -> list[FileScore]:
    """Each file that any signal reached: its reasons rounded, its penalty (none for a file
    the requirement names, or a file of a directory it names), its prior (a bug report's
    docs, tests and configuration), its score."""
    out: list[FileScore] = []
    for p, r in reasons.items():
        raw = sum(r.values())
        if raw <= 0 or never_a_result(p):
            continue
        factor = 1.0 if r.get("named") else penalty_factor(flags[p])  # named: wanted as it is
        doc = corpus.files[p]
        if doc.artifact_type in ("REQ", "ARCH", "OTHER") and w.doc_factor != 1.0:
            factor *= w.doc_factor
        final = {k: round(v, 4) for k, v in r.items() if round(v, 4)}
        score = round(sum(final.values()), 4)
        if factor < 1.0:
            final["penalty"] = round(score * factor - score, 4)
            score = round(score + final["penalty"], 4)
        lower = prior(p)
        if lower < 1.0 and round(score * lower - score, 4):
            final["prior"] = round(score * lower - score, 4)
            score = round(score + final["prior"], 4)
        out.append(FileScore(p, score, final, flags[p], notes[p]))
    out.sort(key=lambda f: (-f.score, f.path))
    return out
