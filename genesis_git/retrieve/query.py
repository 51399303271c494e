"""The query side of a search: its terms, with the configured synonyms (no numpy here)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from genesis_git.errors import GenesisError, UsageError
from genesis_git.text import QueryTerm, SynonymTable, analyze_query

if TYPE_CHECKING:
    from genesis_git.config import Config

_SYNONYMS: dict[str, SynonymTable] = {}


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
    terms = analyze_query(query, synonym_table(config))
    if not terms:
        raise GenesisError(f"the query {query.strip()!r} has only stopwords: nothing to search for",
                           hint="add a word that names what you are looking for")
    return terms
