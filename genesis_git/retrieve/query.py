"""The query side of a search: its terms, with the configured synonyms (no numpy here).

Words that appear in the query only inside a URL or an e-mail address
(``https://github.com/org/repo/pull/12``, ``Co-authored-by: … <a@b.org>``)
are references, not what the user is looking for: they count
:data:`LINK_WEIGHT` of a word (origin ``link``).  A query that is only a URL
keeps its ranking, since every term is scaled alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from genesis_git.errors import GenesisError, UsageError
from genesis_git.text import QueryTerm, SynonymTable, analyze_query, tokenize

if TYPE_CHECKING:
    from genesis_git.config import Config

_SYNONYMS: dict[str, SynonymTable] = {}
LINK_WEIGHT = 0.25
_LINK = re.compile(r"(?:https?|ftp|file)://\S+|www\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def synonym_table(config: Config) -> SynonymTable:
    extra = config.table("text.synonyms")
    key = json.dumps(extra, sort_keys=True, ensure_ascii=False, default=str)
    table = _SYNONYMS.get(key)
    if table is None:
        clean = {str(k): [str(v) for v in (vals if isinstance(vals, list) else [vals])]
                 for k, vals in extra.items()}
        table = _SYNONYMS[key] = SynonymTable(extra=clean)
    return table


def analyse(config: Config, query: str) -> list[QueryTerm]:
    """The query's terms; a clear error for an empty or stopword-only query."""
    if not query or not query.strip():
        raise UsageError("empty query", hint='say what to look for, e.g. genesis search "order table"')
    terms = _demote_links(query, analyze_query(query, synonym_table(config)))
    if not terms:
        raise GenesisError(f"the query {query.strip()!r} has only stopwords: nothing to search for",
                           hint="add a word that names what you are looking for")
    return terms


def _demote_links(query: str, terms: list[QueryTerm]) -> list[QueryTerm]:
    """Terms that come only from URLs and e-mail addresses count LINK_WEIGHT."""
    if not _LINK.search(query):
        return terms
    rest = _LINK.sub(" ", query)
    plain = set(tokenize(rest))
    tokens = {t.term for t in terms if t.origin == "query"}

    def outside(source: str) -> bool:  # a CJK synonym key need not be a token
        return source in plain or (source not in tokens and source in rest)

    out: list[QueryTerm] = []
    for t in terms:
        if t.origin == "query":
            out.append(t if t.term in plain else replace(t, weight=t.weight * LINK_WEIGHT,
                                                         origin="link"))
        else:
            source = t.origin.partition(":")[2]
            out.append(t if outside(source) else replace(t, weight=t.weight * LINK_WEIGHT))
    return out
