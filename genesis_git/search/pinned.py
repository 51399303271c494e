"""The chunks of files that another ranking chose: a search's hits for given paths.

``genesis search --files`` ranks files with the evidence ``genesis impact`` uses
(:mod:`genesis_git.app.services.search` combines the two); a file that impact
ranks and the search's own candidates missed still needs chunks to show.
:func:`path_hits` gives them: the file's chunks that match the query best, or
its first chunk when none matches (a file ranked by its history alone).  The
search's filters hold here too, so a filtered search never shows a file it
would have filtered out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from genesis_git.providers.embedders import embedder_id, get_embedder
from genesis_git.search.engine import build_hits, filter_mask
from genesis_git.search.lexical import lexical_scores
from genesis_git.search.query import analyse_bounded
from genesis_git.search.results import Hit, SearchOptions
from genesis_git.search.session_index import session_index

if TYPE_CHECKING:
    from genesis_git.index.session import Context


def path_hits(ctx: Context, session_id: str, query: str, paths: Sequence[str],
              opts: SearchOptions) -> dict[str, list[Hit]]:
    """Up to ``opts.chunks_per_file`` hits of each of ``paths`` that passes the filters of
    ``opts``: the chunks with the best lexical score, else the file's first chunk."""
    want = set(paths)
    if not want:
        return {}
    terms, _ = analyse_bounded(ctx.config, query)
    idx = session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)))
    if idx.n_rows == 0:
        return {}
    in_paths = np.fromiter((p in want for p in idx.map.paths), dtype=bool,
                           count=len(idx.map.paths))[idx.rows_map]
    rows = np.flatnonzero(in_paths & filter_mask(idx, opts))
    if rows.shape[0] == 0:
        return {}
    lex = lexical_scores(idx, terms)
    total = lex.total[rows]
    chunks = idx.rows_chunk[rows]
    # best lexical score first, then the file's first chunk
    order = rows[np.lexsort((idx.starts[chunks], -total))]
    per_file: dict[str, list[int]] = {}
    for r in order.tolist():
        group = per_file.setdefault(idx.row_path(r), [])
        if len(group) < opts.chunks_per_file and (lex.total[r] > 0 or not group):
            group.append(r)
    picked = [r for group in per_file.values() for r in group]
    scores = {r: float(lex.total[r]) for r in picked}
    out: dict[str, list[Hit]] = {}
    for hit in build_hits(ctx.conn, idx, picked, scores, {}, lex, None, terms, "lexical", {}):
        out.setdefault(hit.path, []).append(hit)
    return out
