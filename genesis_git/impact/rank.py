"""Rank the files of a corpus for a requirement, and say why.

The score of a file is a weighted sum of signals, each scaled to 0..1 over
the corpus, then multiplied by a penalty for lock, vendored and generated
files.  ``reasons`` holds every signal's contribution (and the penalty as a
negative number), so the reasons of a file add up to its score.

* ``text`` — BM25 (k1 1.2, b 0.75) of the query terms over the whole file,
  blended with the best chunk's BM25;
* ``path`` — query terms found in the path;
* ``named`` — the requirement names the file (``core.py``, ``src/x/y.py``);
* ``definition`` — the file defines a symbol or table that the requirement
  names (``class Order``, ``CREATE TABLE orders``, ``__tablename__``);
* ``graph`` — the file imports a file that ranks high on the signals
  above, or mirrors the columns of a table the requirement names;
* ``cochange`` — the file changed together with high-ranking files in
  HEAD's history (ROSE confidence, recency-weighted);
* ``churn`` — how often the file changed recently (a small prior);
* ``story`` — earlier stories with similar text touched the file.

A changelog gets ``text`` and ``path`` only: it is never pushed up because it
changes often.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from genesis_git.impact.corpus import Corpus
from genesis_git.impact.graph import Graph, Table, build_graph, column_tokens
from genesis_git.impact.history import (
    History,
    churn_scores,
    cochange_scores,
    similar_commit_scores,
    story_scores,
)
from genesis_git.impact.signals import QueryInfo, file_flags, penalty_factor
from genesis_git.text import bm25
from genesis_git.text.tokens import tokenize

PROSE_EXT = {"md", "markdown", "mdx", "rst", "txt", "adoc", "asciidoc"}
SEED_SIGNALS = {"text", "path", "named", "definition"}


@dataclass
class Weights:
    text: float = 1.0
    chunk_share: float = 0.35  # share of the best chunk in the text signal
    path: float = 0.35
    named: float = 0.5  # the requirement names the file (core.py, src/x/y.py)
    definition: float = 0.2
    graph: float = 0.15
    fields: float = 0.35  # files that mention most columns of a table the query names
    fields_schema: float = 1.0  # the same when the requirement changes a field of that table
    prose_fields: float = 0.3  # documents mirroring the row *should* change, code *must*
    cochange: float = 0.25
    churn: float = 0.05
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


def _bm25(tf: int, dl: int, avgdl: float, term_idf: float) -> float:
    return float(bm25.term_score(tf, bm25.norm(dl, avgdl), term_idf))


_idf = bm25.idf


def text_scores(corpus: Corpus, weights: dict[str, float]
                ) -> tuple[dict[str, float], dict[str, float], set[str], dict[str, set[str]]]:
    """File-level BM25 (path tokens count), best-chunk BM25, the terms that matched anywhere,
    and the query terms each file holds."""
    if corpus.stats is not None:  # a prepared corpus: from the session's search base
        return corpus.stats.text_scores(corpus, weights)
    terms = set(weights)
    file_tf: dict[str, Counter[str]] = {}
    file_len: dict[str, int] = {}
    chunk_rows: list[tuple[str, Counter[str], int]] = []
    for path, doc in corpus.files.items():
        total: Counter[str] = Counter(t for t in doc.path_tokens if t in terms)
        length = len(doc.path_tokens)
        for c in doc.chunks:
            ctf = Counter(t for t in c.tokens if t in terms)
            length += len(c.tokens)
            total.update(ctf)
            chunk_rows.append((path, ctf, len(c.tokens)))
        file_tf[path] = total
        file_len[path] = length
    n_files = max(len(file_tf), 1)
    avg_file = sum(file_len.values()) / n_files or 1.0
    df = Counter(t for tf in file_tf.values() for t in tf)
    idf = {t: _idf(n_files, df[t]) for t in df}
    files: dict[str, float] = {}
    for path, tf in file_tf.items():
        s = sum(weights[t] * _bm25(n, file_len[path], avg_file, idf[t]) for t, n in tf.items())
        if s > 0:
            files[path] = s
    n_chunks = max(len(chunk_rows), 1)
    avg_chunk = sum(r[2] for r in chunk_rows) / n_chunks or 1.0
    cdf = Counter(t for _, tf, _ in chunk_rows for t in tf)
    cidf = {t: _idf(n_chunks, cdf[t]) for t in cdf}
    best: dict[str, float] = {}
    for path, tf, dl in chunk_rows:
        if not tf:
            continue
        s = sum(weights[t] * _bm25(n, dl, avg_chunk, cidf[t]) for t, n in tf.items())
        if s > best.get(path, 0.0):
            best[path] = s
    return files, best, set(df), {p: set(tf) for p, tf in file_tf.items() if tf}


def _stem_tokens(path: str) -> set[str]:
    base = path.rsplit("/", 1)[-1]
    return set(tokenize(base.split(".", 1)[0] if not base.startswith(".") else base))


def path_scores(corpus: Corpus, q: QueryInfo) -> dict[str, float]:
    """The share of the query's weight (idf over paths) found in each path; file names count 1.5×."""
    terms = set(q.weights)
    n = max(len(corpus.files), 1)
    df: Counter[str] = Counter()
    for doc in corpus.files.values():
        df.update(set(doc.path_tokens) & terms)
    total = sum(w * _idf(n, df[t]) for t, w in q.weights.items()) or 1.0
    out: dict[str, float] = {}
    for path, doc in corpus.files.items():
        stem = _stem_tokens(path)
        s = 0.0
        for t in set(doc.path_tokens) & terms:
            s += q.weights[t] * _idf(n, df[t]) * (1.5 if t in stem else 1.0)
        if s > 0:
            out[path] = min(1.0, s / total)
    return out


def named_scores(corpus: Corpus, q: QueryInfo) -> dict[str, float]:
    """Files the requirement names outright: 1 for the path (``src/x/y.py``), 0.5 for the name."""
    out: dict[str, float] = {}
    for path in corpus.files:
        base = path.rsplit("/", 1)[-1]
        for hint in q.file_hints:
            if path == hint or path.endswith("/" + hint):
                out[path] = 1.0
            elif base == hint.rsplit("/", 1)[-1]:
                out[path] = max(out.get(path, 0.0), 0.5)
    return out


def definition_scores(corpus: Corpus, graph: Graph, q: QueryInfo) -> tuple[dict[str, float],
                                                                           list[Table]]:
    """Files that define a symbol or a table the requirement names."""
    out: dict[str, float] = {}
    n = max(len(corpus.files), 1)
    for tok, defs in graph.symbols.items():
        w = q.weights.get(tok)
        if not w or not q.names(tok):
            continue
        defining = sorted({p for p, *_ in defs})
        idf = _idf(n, len(defining))
        named = 1.5 if tok in q.ident_tokens else 1.0
        for p in defining:
            out[p] = out.get(p, 0.0) + w * idf * named
    tables: list[Table] = []
    for tok, table in sorted(graph.tables.items()):
        w = q.weights.get(tok)
        if not w or not q.names(tok):
            continue
        tables.append(table)
        boost = 2.0 if q.mentions_table else 1.0
        for p in table.paths:
            out[p] = out.get(p, 0.0) + w * boost * _idf(n, len(table.paths))
    return out, tables


def _normalise(values: dict[str, float]) -> dict[str, float]:
    top = max(values.values(), default=0.0)
    if top <= 0:
        return {}
    return {p: v / top for p, v in values.items() if v > 0}


def _field_idents(q: QueryInfo, graph: Graph, tables: list[Table]) -> list[str]:
    """Identifiers of the query that are columns of the tables, or new names (not symbols)."""
    columns = {c for t in tables for c in column_tokens(t)}
    return [tok for tok in q.ident_tokens
            if tok in columns or (tok not in graph.symbols and tok not in graph.tables)]


def _field_scores(corpus: Corpus, tables: list[Table]) -> dict[str, float]:
    """Share of a named table's columns that a file mentions (files mirroring the row)."""
    out: dict[str, float] = {}
    for table in tables:
        cols = column_tokens(table)
        if len(cols) < 3:
            continue
        if corpus.stats is not None:
            for path, share in corpus.stats.column_share(corpus, cols).items():
                if share >= 0.34:
                    out[path] = max(out.get(path, 0.0), share)
            continue
        wanted = set(cols)
        for path, doc in corpus.files.items():
            seen: set[str] = set()
            for c in doc.chunks:
                seen.update(t for t in c.tokens if t in wanted)
            share = len(seen) / len(cols)
            if share >= 0.34:
                out[path] = max(out.get(path, 0.0), share)
    return out


def rank(corpus: Corpus, q: QueryInfo, opts: RankOptions, history: History | None = None,
         stories: list[tuple[str, str, list[str]]] | None = None) -> Ranking:
    """Score every file of ``corpus``; the best first, ties by path."""
    w = opts.weights
    file_text, chunk_best, matched, file_terms = text_scores(corpus, q.weights)
    text_n = _normalise(file_text)
    chunk_n = _normalise(chunk_best)
    path_n = _normalise(path_scores(corpus, q))
    named = named_scores(corpus, q)
    graph = None
    if opts.graph or q.mentions_table or q.ident_tokens:
        # a corpus its caller keeps holds one whole graph: the same answers, built once
        graph = (corpus.derived("graph", _whole_graph) if corpus.keep
                 else build_graph(corpus, wanted=set(q.weights), eager_imports=False))
    defs_n: dict[str, float] = {}
    tables: list[Table] = []
    if graph is not None:
        defs, tables = definition_scores(corpus, graph, q)
        defs_n = _normalise(defs)
    flags = corpus.derived("flags", _file_flags) if corpus.keep else _file_flags(corpus)
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
    candidates = [p for p in corpus.files if "changelog" not in flags[p]]
    use_history = opts.history and history is not None and bool(history.transactions)
    if use_history and w.commits:
        assert history is not None
        sim = similar_commit_scores(history, q.weights, candidates, top=w.commits_top)
        for p, v in _normalise({p: s for p, (s, _) in sim.items()}).items():
            reasons[p]["commits"] = w.commits * v
            notes[p]["commits"] = sim[p][1][:2]
    base = {p: sum(v for k, v in r.items() if k in SEED_SIGNALS) for p, r in reasons.items()}
    seeds = _seeds(base, flags, w.seeds)
    if opts.graph and graph is not None:
        _graph_signal(corpus, graph, q, seeds, reasons, notes, flags, w, file_terms)
        fields = _field_scores(corpus, tables)
        schema_change = bool(tables) and (q.mentions_field or bool(_field_idents(q, graph, tables)))
        weight = w.fields_schema if schema_change else w.fields
        for p, share in fields.items():
            if "changelog" in flags[p]:
                continue
            prose = p.rsplit(".", 1)[-1].lower() in PROSE_EXT
            reasons[p]["fields"] = weight * share * (w.prose_fields if prose else 1.0)
            notes[p]["fields"] = [t.name for t in tables]
    if use_history:
        assert history is not None
        co = cochange_scores(history, seeds, candidates)
        co_n = _normalise({p: s for p, (s, _) in co.items()})
        for p, v in co_n.items():
            reasons[p]["cochange"] = w.cochange * v
            notes[p]["cochange"] = co[p][1][:3]
        churn_n = _normalise(churn_scores(history, candidates))
        for p, v in churn_n.items():
            if w.churn and v and reasons[p]:  # a prior only for files the query reached
                reasons[p]["churn"] = w.churn * v
    if opts.stories and stories:
        st = story_scores(stories, q.weights, candidates)
        st_n = _normalise({p: s for p, (s, _) in st.items()})
        for p, v in st_n.items():
            reasons[p]["story"] = w.story * v
            notes[p]["story"] = st[p][1]
    out: list[FileScore] = []
    for p, r in reasons.items():
        raw = sum(r.values())
        if raw <= 0:
            continue
        factor = penalty_factor(flags[p])
        doc = corpus.files[p]
        if doc.artifact_type in ("REQ", "ARCH", "OTHER") and w.doc_factor != 1.0:
            factor *= w.doc_factor
        final = {k: round(v, 4) for k, v in r.items() if round(v, 4)}
        score = round(sum(final.values()), 4)
        if factor < 1.0:
            final["penalty"] = round(score * factor - score, 4)
            score = round(score + final["penalty"], 4)
        out.append(FileScore(p, score, final, flags[p], notes[p]))
    out.sort(key=lambda f: (-f.score, f.path))
    return Ranking(out, sorted(matched), tables, graph)


def _whole_graph(corpus: Corpus) -> Graph:
    return build_graph(corpus, eager_imports=False)


def _file_flags(corpus: Corpus) -> dict[str, list[str]]:
    return {p: file_flags(p, doc.head(), marked=doc.facts.generated if doc.facts else None)
            for p, doc in corpus.files.items()}


def _seeds(base: dict[str, float], flags: dict[str, list[str]], n: int) -> dict[str, float]:
    """The best files on text, path and definition, weighted relative to the best one."""
    ranked = sorted(((s, p) for p, s in base.items() if s > 0 and not flags[p]),
                    key=lambda x: (-x[0], x[1]))[:n]
    if not ranked:
        return {}
    top = ranked[0][0]
    return {p: s / top for s, p in ranked}


def hit_symbols(graph: Graph, path: str, q: QueryInfo) -> set[str]:
    """Whole-identifier tokens of the symbols and tables ``path`` defines that the query names."""
    named = [tok for tok in q.weights if q.names(tok)]  # fewer than the graph's symbols
    out = {tok for tok in named if any(p == path for p, *_ in graph.symbols.get(tok, ()))}
    out |= {tok for tok in named if tok in graph.tables and path in graph.tables[tok].paths}
    return out


def _graph_signal(corpus: Corpus, graph: Graph, q: QueryInfo, seeds: dict[str, float],
                  reasons: dict[str, dict[str, float]], notes: dict[str, dict[str, list[str]]],
                  flags: dict[str, list[str]], w: Weights,
                  file_terms: dict[str, set[str]]) -> None:
    """Files that import a seed *and* use one of the seed's symbols that the query names."""
    raw: dict[str, float] = {}
    why: dict[str, list[tuple[float, str]]] = {}
    for seed, weight in seeds.items():
        wanted = hit_symbols(graph, seed, q)
        if not wanted:
            continue
        for user in sorted(p for p, terms in file_terms.items() if terms & wanted):
            if user == seed or "changelog" in flags.get(user, []):
                continue
            if seed not in graph.imports_of(user):
                continue
            used = wanted & file_terms[user]
            share = weight * sum(q.weights[t] for t in used) / sum(q.weights[t] for t in wanted)
            raw[user] = raw.get(user, 0.0) + share
            why.setdefault(user, []).append((share, seed))
    for p, v in raw.items():
        reasons[p]["graph"] = reasons[p].get("graph", 0.0) + w.graph * min(1.0, v)
        notes[p]["graph"] = [s for _, s in sorted(why[p], key=lambda x: (-x[0], x[1]))][:3]
