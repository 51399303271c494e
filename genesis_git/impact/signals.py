"""The third station of impact: the signals, each a raw score per file of the corpus.

* ``text`` — BM25 of the query terms over the whole file and its best chunk
  (:meth:`~genesis_git.impact.corpus.Corpus.text_scores`);
* ``path`` — query terms found in the path, or inside a run-together file name at half
  weight (``pdf`` in ``mypdfloader.py``);
* ``named`` — the requirement names the file (``core.py``, ``src/x/y.py``);
* ``definition`` — the file defines a symbol or table that the requirement
  names (``class Order``, ``CREATE TABLE orders``, ``__tablename__``);
* ``graph`` — the file imports a seed (a file that ranks high on the signals
  above) and uses what the seed defines that the query names, less when many files
  do;
* ``fields`` — the file mentions most columns of a table the query names;
* ``commits``, ``cochange``, ``churn``, ``recent``, ``story`` — from HEAD's history and
  the ledger (:mod:`genesis_git.impact.history`).

Every signal reads the corpus through its protocol; none changes it.
:mod:`genesis_git.impact.combine` weighs and adds them.
"""

from __future__ import annotations

from dataclasses import replace

from genesis_git.impact.analyse import QueryInfo
from genesis_git.impact.corpus import Corpus
from genesis_git.impact.graph import Graph, Table, column_tokens
from genesis_git.text import bm25

_idf = bm25.idf


def with_compounds(corpus: Corpus, q: QueryInfo) -> QueryInfo:
    """``q`` with the joined words (:attr:`QueryInfo.compounds`) that name a file of the tree
    (``read the docs`` -> ``.readthedocs.yaml``) among its terms."""
    index, _ = corpus.path_index()
    found = {t: w for t, w in q.compounds.items() if t in index}
    return replace(q, weights={**q.weights, **found}) if found else q


def path_scores(corpus: Corpus, q: QueryInfo) -> dict[str, float]:
    """The share of the query's weight (idf over paths) found in each path; file names count 1.5×."""
    terms = set(q.weights)
    n = max(len(corpus.files), 1)
    index, stems = corpus.path_index()
    df = {t: len(index.get(t, ())) for t in terms}
    total = sum(w * _idf(n, df[t]) for t, w in q.weights.items()) or 1.0
    hit = {p for t in terms for p in index.get(t, ())}
    out: dict[str, float] = {}
    for path, doc in corpus.files.items():
        if path not in hit:
            continue
        s = 0.0
        for t in set(doc.path_tokens) & terms:
            s += q.weights[t] * _idf(n, df[t]) * (1.5 if t in stems[path] else 1.0)
        if s > 0:
            out[path] = min(1.0, s / total)
    for path, share in _inside_names(corpus, q, n, total).items():
        out[path] = min(1.0, out.get(path, 0.0) + share)
    return out


INSIDE_MIN = 3  # a query word this long or longer is looked for inside run-together file names
INSIDE_SHARE = 0.5  # what such a word counts against the same word standing alone


def _inside_names(corpus: Corpus, q: QueryInfo, n: int, total: float) -> dict[str, float]:
    """Half the path weight of a query word found inside a run-together file name
    (``pdf`` in ``mypdfloader.py``), for a file whose path does not hold the word itself."""
    out: dict[str, float] = {}
    for t, w in q.weights.items():
        if len(t) < INSIDE_MIN or not (t.isascii() and t.isalpha()):
            continue
        paths = corpus.files_named_with(t)
        share = INSIDE_SHARE * w * _idf(n, len(paths)) / total
        for path in paths:
            if t not in corpus.files[path].path_tokens:
                out[path] = out.get(path, 0.0) + share
    return out


DIR_FILES = 20  # a directory the requirement names points at its files when it has at most these


def named_scores(corpus: Corpus, q: QueryInfo) -> dict[str, float]:
    """Files the requirement names outright: 1 for the path (``src/x/y.py``), 0.5 for the name,
    0.5 for each file of a small directory it writes as a path (``/requirements``)."""
    out: dict[str, float] = {}
    for hint in q.dir_hints:
        inside = [p for p in corpus.files
                  if (parent := p.rpartition("/")[0]) == hint or parent.endswith("/" + hint)]
        if len(inside) <= DIR_FILES:
            for path in inside:
                out[path] = max(out.get(path, 0.0), 0.5)
    for path in corpus.files:
        base = path.rsplit("/", 1)[-1]
        for hint in q.file_hints:
            if path == hint or path.endswith("/" + hint):
                out[path] = 1.0
            elif base == hint.rsplit("/", 1)[-1]:
                out[path] = max(out.get(path, 0.0), 0.5)
    return out


def definition_scores(corpus: Corpus, graph: Graph, q: QueryInfo,
                      anchors: set[str] | None = None) -> tuple[dict[str, float], list[Table]]:
    """Files that define a symbol or a table the requirement names (with ``anchors``, only
    the symbols among them: :func:`genesis_git.impact.anchors.anchor_tokens`)."""
    out: dict[str, float] = {}
    n = max(len(corpus.files), 1)
    for tok, defs in graph.symbols.items():
        w = q.weights.get(tok)
        if not w or not q.names(tok) or (anchors is not None and tok not in anchors):
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


def field_idents(q: QueryInfo, graph: Graph, tables: list[Table]) -> list[str]:
    """Identifiers of the query that are columns of the tables, or new names (not symbols)."""
    columns = {c for t in tables for c in column_tokens(t)}
    return [tok for tok in q.ident_tokens
            if tok in columns or (tok not in graph.symbols and tok not in graph.tables)]


def field_scores(corpus: Corpus, tables: list[Table]) -> dict[str, float]:
    """Share of a named table's columns that a file mentions (files mirroring the row)."""
    out: dict[str, float] = {}
    for table in tables:
        cols = column_tokens(table)
        if len(cols) < 3:
            continue
        for path, share in corpus.column_share(cols).items():
            if share >= 0.34:
                out[path] = max(out.get(path, 0.0), share)
    return out


def hit_symbols(graph: Graph, path: str, q: QueryInfo) -> set[str]:
    """Whole-identifier tokens of the symbols and tables ``path`` defines that the query names."""
    named = [tok for tok in q.weights if q.names(tok)]  # fewer than the graph's symbols
    out = {tok for tok in named if any(p == path for p, *_ in graph.symbols.get(tok, ()))}
    out |= {tok for tok in named if tok in graph.tables and path in graph.tables[tok].paths}
    return out


def graph_scores(graph: Graph, q: QueryInfo, seeds: dict[str, float],
                 flags: dict[str, list[str]], file_terms: dict[str, set[str]]
                 ) -> tuple[dict[str, float], dict[str, list[tuple[float, str]]]]:
    """Files that import a seed *and* use one of the seed's symbols that the query names:
    the raw score of each, and (share, seed) for each seed it uses.  A seed lends its
    callers the idf of their number (over that of one caller): what half the tree calls
    says little about which caller the requirement means."""
    raw: dict[str, float] = {}
    why: dict[str, list[tuple[float, str]]] = {}
    n = len(file_terms)
    for seed, weight in seeds.items():
        wanted = hit_symbols(graph, seed, q)
        if not wanted:
            continue
        users = sorted(p for p, terms in file_terms.items()
                       if terms & wanted and p != seed and "changelog" not in flags.get(p, [])
                       and seed in graph.imports_of(p))
        rarity = _idf(n, len(users)) / _idf(n, 1)
        for user in users:
            used = wanted & file_terms[user]
            share = (weight * rarity * sum(q.weights[t] for t in used)
                     / sum(q.weights[t] for t in wanted))
            raw[user] = raw.get(user, 0.0) + share
            why.setdefault(user, []).append((share, seed))
    return raw, why
