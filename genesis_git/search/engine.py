"""``search``: analyse the query, score the session's rows, fuse, filter, and explain.

The station of the data line: session map → **retrieve** → render.  Nothing
here writes to the store; the caller refreshes the session first
(:func:`genesis_git.index.session.ensure_session`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from genesis_git.index.chunk import CODE_EXTENSIONS
from genesis_git.index.classify import glob_match
from genesis_git.kernel.errors import UsageError
from genesis_git.providers.embedders import (
    EmbeddingError,
    HashingEmbedder,
    embedder_id,
    get_embedder,
)
from genesis_git.search.exact import DEFINITION, NAME, arrange
from genesis_git.search.explain import contributions, matched
from genesis_git.search.hybrid import (
    ordered,
    path_order,
    path_rows,
    ranks_beyond,
    rrf,
    top_rows,
)
from genesis_git.search.identifiers import (
    identifier_of,
    last_part,
    symbol_parts,
    tokenless,
    word_of,
)
from genesis_git.search.lexical import LexicalScores, lexical_scores
from genesis_git.search.query import analyse, analyse_bounded
from genesis_git.search.results import Hit, SearchOptions, SearchResult
from genesis_git.search.session_index import (
    SessionIndex,
    path_tokens,
    session_index,
)
from genesis_git.search.textlines import LinesOf, WordLines, whole_word, word_lines
from genesis_git.search.texts import texts_at
from genesis_git.search.vectors import VectorUnavailable, cosine_rows, query_vector
from genesis_git.store.blobs import chunk_details
from genesis_git.text.querybounds import bound_query
from genesis_git.text.quoting import quoted
from genesis_git.text.tokens import QueryTerm, tokenize

if TYPE_CHECKING:
    from genesis_git.index.session import Context
    from genesis_git.search.inherit import Lineage

__all__ = ["analyse", "filter_mask", "search", "type_ok"]

def _path_ok(path: str, patterns: tuple[str, ...]) -> bool:
    for pat in patterns:
        if glob_match(path, pat) or glob_match(path, pat.rstrip("/") + "/**"):
            return True
    return False


def _owner_ok(owners: str | None, wanted: str) -> bool:
    if not owners:
        return False
    want = wanted.strip().lstrip("@").lower()
    return any(o.lstrip("@").lower() == want for o in owners.split())


def type_ok(artifact_type: str, path: str, wanted: tuple[str, ...]) -> bool:
    """``artifact_type`` is one of ``wanted``; a source file (by extension) is CODE too, even
    when its content makes it an API (routes) or DB (models) file: ``--type CODE`` keeps it."""
    if artifact_type in wanted:
        return True
    if "CODE" not in wanted:
        return False
    base = path.rsplit("/", 1)[-1]
    ext = base[base.rfind("."):].lower() if "." in base else ""
    return ext in CODE_EXTENSIONS and ext != ".sql"  # SQL files are the DB type's own


def filter_mask(idx: SessionIndex, opts: SearchOptions) -> np.ndarray:
    """Rows whose file passes every filter of ``opts``."""
    m = idx.map
    ok = np.ones(len(m.paths), dtype=bool)
    if opts.types:
        ok &= np.fromiter((type_ok(t, p, opts.types) for t, p in zip(m.types.tolist(), m.paths,
                                                                      strict=True)),
                          dtype=bool, count=len(m.paths))
    if opts.paths:
        ok &= np.fromiter((_path_ok(p, opts.paths) for p in m.paths), dtype=bool, count=len(m.paths))
    if opts.component:
        want = opts.component.strip().lower()
        ok &= np.fromiter(((c or "").lower() == want for c in m.components), dtype=bool,
                          count=len(m.paths))
    if opts.owner:
        ok &= np.fromiter((_owner_ok(o, opts.owner) for o in m.owners), dtype=bool,
                          count=len(m.paths))
    if opts.max_staleness is not None:
        ok &= m.staleness <= opts.max_staleness + 1e-9
    return ok[idx.rows_map] if idx.n_rows else np.zeros(0, dtype=bool)


def _pool(opts: SearchOptions) -> int:
    return max(500, 20 * opts.k) if opts.files else max(100, 10 * opts.k)


def search(ctx: Context, session_id: str, query: str, opts: SearchOptions | None = None
           ) -> SearchResult:
    """Search the rows that session ``session_id`` maps (see :mod:`genesis_git.search`)."""
    opts = (opts or SearchOptions()).validated()
    config = ctx.config
    name = identifier_of(query)
    written = name or word_of(query)  # one identifier, or a word the tree may define
    try:
        terms, notes = analyse_bounded(config, query)
    except UsageError:  # only stopwords: a name of the tree all the same (has(), S, Basic.has)?
        named = tokenless_name(query, opts.mode)
        found = _tokenless_search(ctx, session_id, query, *named, opts) if named else None
        if found is None:
            raise
        return found
    embedder = get_embedder(config)
    idx = session_index(ctx.conn, session_id, embedder_id(embedder))
    rrf_k = max(1, config.settings.search.rrf_k)
    warnings: list[str] = list(notes)
    mode = opts.mode
    mask = filter_mask(idx, opts)
    lex = lexical_scores(idx, terms)
    vec: np.ndarray | None = None
    if mode in ("vector", "hybrid") and idx.n_rows:
        try:
            idf = {t.term: t.idf for t in lex.stats.terms}
            vec = cosine_rows(idx, query_vector(embedder, bound_query(query)[0], terms, idf))
            if isinstance(embedder, HashingEmbedder):
                # hashed features of two texts overlap without a shared word only by collision
                vec = np.where(lex.content > 0, vec, 0.0)
        except EmbeddingError as exc:
            if config.settings.embed.on_error.strip().lower() == "error":
                raise
            warnings.append(f"{exc}; showing lexical results only (embed.on_error = fallback)")
        except VectorUnavailable as exc:
            warnings.append(f"{exc}; showing lexical results only")
        if vec is None:
            mode = "lexical"
    pool = _pool(opts)
    lists: dict[str, list[int]] = {}
    if mode in ("lexical", "hybrid"):
        lists["lexical"] = top_rows(idx, lex.total, mask, pool)
    if mode == "hybrid":
        lists["path"] = path_rows(idx, lex.path, lex.total, mask, pool)
    if vec is not None:
        lists["vector"] = top_rows(idx, vec, mask, pool)
    fused = rrf(lists, rrf_k)
    if mode == "hybrid":
        scores = {row: f.score for row, f in fused.items()}
    elif mode == "lexical":
        scores = {row: float(lex.total[row]) for row in lists["lexical"]}
    else:
        assert vec is not None
        scores = {row: float(vec[row]) for row in lists["vector"]}
    order = ordered(idx, scores)
    tiers: dict[int, str] = {}
    if written is not None and mode != "vector":  # definitions first
        order, tiers, _ = arrange(ctx.conn, idx, order, mask, written, defined_only=name is None,
                                 want=opts.k, lines=_lines(ctx), lineage=_lineage(ctx, idx))
        beyond = [row for row in order if row not in scores]  # it made none of the lists
        if beyond and mode == "hybrid":
            fused.update(ranks_beyond(_channels(lex, vec, mask), beyond, rrf_k))
        for row in beyond:
            scores[row] = fused[row].score if mode == "hybrid" else float(lex.total[row])
    rows = _select(idx, order, opts)
    hits = build_hits(ctx.conn, idx, rows, scores, fused, lex, vec, terms, mode, tiers)
    if written is not None:
        _name_hits(hits, written)
    if not hits:
        warnings.append(_why_empty(idx, mask, opts))
    stats = {"files": len(idx.map.paths), "rows": idx.n_rows,
             "candidates": {name: len(v) for name, v in lists.items()},
             "avgdl": round(lex.stats.avgdl, 3), "rrf_k": rrf_k}
    return SearchResult(query, terms, hits, warnings, mode, session_id, stats)


def _channels(lex: LexicalScores, vec: np.ndarray | None, mask: np.ndarray
              ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The lists hybrid search fuses, as scores and masks, uncut (:func:`ranks_beyond`)."""
    channels = {"lexical": (lex.total, mask), "path": (path_order(lex.path, lex.total, mask), mask)}
    if vec is not None:
        channels["vector"] = (vec, mask)
    return channels


def tokenless_name(query: str, mode: str) -> tuple[str, bool] | None:
    """The name ``query`` is when the index keeps no token of it (``has()``, ``S``,
    ``Basic.has``, the plain word ``has``), with whether it is a plain word (a name only
    where the tree defines it); ``None`` for any other query, and in vector mode."""
    if mode == "vector":
        return None
    name = identifier_of(query)
    written = name or word_of(query)
    if written is None or not tokenless(written):
        return None
    return written, name is None


def _lineage(ctx: Context, idx: SessionIndex) -> Lineage:
    """The tree's class ancestry, kept with the session's index (a new one when a file
    changes)."""
    from genesis_git.search.classlines import session_lineage
    from genesis_git.search.inherit import Lineage

    if not isinstance(idx.lineage, Lineage):
        idx.lineage = session_lineage(ctx.conn, ctx.repo.root, idx.session_id)
    return idx.lineage


def _lines(ctx: Context) -> LinesOf:
    def lines(word: str, paths: Sequence[str] | None = None) -> dict[str, WordLines]:
        return word_lines(ctx.repo.root, word, paths)
    return lines


def _tokenless_search(ctx: Context, session_id: str, query: str, written: str,
                      defined_only: bool, opts: SearchOptions) -> SearchResult | None:
    """A name the index keeps no token of (``has()``, ``S``, ``Basic.has``): its definitions,
    then the files that use it, from the files' text (:func:`~genesis_git.search.exact.arrange`).
    A plain word (``has``) is a name only where the tree defines it; otherwise ``None``: the
    query has only stopwords, as it says."""
    idx = session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)))
    mask = filter_mask(idx, opts)
    order, tiers, text = arrange(ctx.conn, idx, [], mask, written, defined_only=defined_only,
                                 want=opts.k, lines=_lines(ctx))
    if defined_only and not tiers:
        return None
    lex = lexical_scores(idx, [])
    rows = _select(idx, order, opts)
    hits = build_hits(ctx.conn, idx, rows, {r: text.get(r, 0.0) for r in order}, {}, lex, None,
                      [], "lexical", tiers)
    _name_hits(hits, written)
    for hit in hits:
        hit.breakdown["text"] = hit.score  # the score is its lines': what --explain says
        if hit.name:  # matched: the name, held as written
            hit.matched_terms = [hit.name]
    warnings = [] if hits else [_why_empty(idx, mask, opts) if not mask.any() or not idx.n_rows
                                else f"no results: no file holds {quoted(last_part(written))} "
                                     "as a whole word"]
    stats = {"files": len(idx.map.paths), "rows": idx.n_rows, "candidates": {"text": len(order)},
             "avgdl": round(lex.stats.avgdl, 3), "rrf_k": max(1, ctx.config.settings.search.rrf_k)}
    return SearchResult(query, [], hits, warnings, "lexical", session_id, stats)


def _name_hits(hits: list[Hit], written: str) -> None:
    """Each hit that defines ``written`` or holds it as written knows the name (the line it
    shows is the name's).  A dotted name that a hit says whole (``os.environ``) shows that
    line, not one that defines its last part (a local ``environ: dict = None``), unless the
    hit is the chunk of a definition of the name (``Basic.has`` shows ``def has(``,
    ``S.Zero`` shows ``class Zero(``)."""
    last = last_part(written)
    whole = whole_word(written) if last != written else None
    for hit in hits:
        if hit.breakdown.get("exact") not in (DEFINITION, NAME):
            continue
        hit.name = last
        if whole is not None and symbol_parts(hit.symbol)[-1:] != [last] \
                and whole.search(hit.text):
            hit.name = written  # not the chunk of the name's own definition; it says it whole


def _select(idx: SessionIndex, rows: list[int], opts: SearchOptions) -> list[int]:
    if not opts.files:
        return rows[:opts.k]
    per_file: dict[str, list[int]] = {}
    for row in rows:
        path = idx.row_path(row)
        group = per_file.get(path)
        if group is None:
            if len(per_file) >= opts.k:
                continue
            group = per_file[path] = []
        if len(group) < opts.chunks_per_file:
            group.append(row)
    return [row for group in per_file.values() for row in group]


def _why_empty(idx: SessionIndex, mask: np.ndarray, opts: SearchOptions) -> str:
    if idx.n_rows == 0:
        return "no results: the session maps no indexed text yet"
    if not mask.any():
        return "no results: no file passes the filters"
    return "no results: no chunk matches the query terms"


def build_hits(conn: sqlite3.Connection, idx: SessionIndex, rows: list[int], scores: dict[int, float],
          fused: dict[int, Any], lex: LexicalScores, vec: np.ndarray | None,
          terms: list[QueryTerm], mode: str, tiers: dict[int, str]) -> list[Hit]:
    ids = sorted({int(idx.chunk_ids[int(idx.rows_chunk[r])]) for r in rows})
    details: dict[int, tuple[Any, ...]] = {}
    for row in chunk_details(conn, ids):
        details[row[0]] = row
    wanted: dict[int, set[int]] = {}
    for detail in details.values():
        wanted.setdefault(detail[1], set()).add(detail[2])
    texts = texts_at(conn, wanted, idx.texts)
    hits: list[Hit] = []
    for r in rows:
        cid = int(idx.chunk_ids[int(idx.rows_chunk[r])])
        d = details.get(cid)
        if d is None:  # pragma: no cover - the cache lost a chunk between two statements
            continue
        m = int(idx.rows_map[r])
        path = idx.map.paths[m]
        _, blob_id, ord_, start, end, section, symbol, kind = d
        text = texts[(blob_id, ord_)]
        tokens = tokenize(text)
        in_path = matched(terms, path_tokens(path))
        in_text = matched(terms, tokens)
        f = fused.get(r)
        breakdown: dict[str, Any] = {
            "bm25": float(lex.content[r]),
            "vector": float(vec[r]) if vec is not None else None,
            "rrf": f.score if (f is not None and mode == "hybrid") else None,
            "boosts": {"path": float(lex.path[r]),
                       "file": float(lex.file[r]) if lex.file is not None else 0.0},
            "lexical_rank": f.ranks.get("lexical") if f is not None else None,
            "path_rank": f.ranks.get("path") if f is not None else None,
            "vector_rank": f.ranks.get("vector") if f is not None else None,
            "terms": contributions(lex.stats, tokens),
            "path_terms": in_path,
        }
        if tiers:
            breakdown["exact"] = tiers.get(r)
        hits.append(Hit(
            chunk_id=cid, path=path, start_line=start, end_line=end,
            section=section, symbol=symbol, artifact_type=str(idx.map.types[m]),
            component=idx.map.components[m], owner=idx.map.owners[m], text=text,
            score=scores[r], breakdown=breakdown,
            matched_terms=[t.term for t in terms if t.term in set(in_text) | set(in_path)],
            kind=kind, staleness=float(idx.map.staleness[m])))
    return hits
