"""The query side of a search: its terms, with the configured synonyms (no numpy here).

Words that appear in the query only inside a URL or an e-mail address
(``https://github.com/org/repo/pull/12``, ``Co-authored-by: … <a@b.org>``)
are references, not what the user is looking for: they count
:data:`LINK_WEIGHT` of a word (origin ``link``).  A query that is only a URL
keeps its ranking, since every term is scaled alike.  A pasted traceback is
read without the words every traceback has (``Traceback (most recent call
last)``, ``File "…", line 12, in``), unless they are all the query says.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from genesis_git.kernel.errors import UsageError
from genesis_git.text.querybounds import (
    MAX_QUERY_TERMS,
    bound_notes,
    bound_query,
    term_priority,
    weightiest,
)
from genesis_git.text.quoting import quoted
from genesis_git.text.tokens import (
    LINK,
    QueryTerm,
    SynonymTable,
    analyze_query_counted,
    tokenize,
    without_chrome,
)
from genesis_git.text.tokens import synonym_table as text_synonym_table

if TYPE_CHECKING:
    from genesis_git.config.settings import Config

LINK_WEIGHT = 0.25


def synonym_table(config: Config) -> SynonymTable:
    return text_synonym_table(dict(config.settings.text.synonyms))


def analyse(config: Config, query: str) -> list[QueryTerm]:
    """The query's terms; a clear error for an empty or stopword-only query."""
    return analyse_bounded(config, query)[0]


def analyse_bounded(config: Config, query: str) -> tuple[list[QueryTerm], list[str]]:
    """The query's terms, within the bounds of :mod:`genesis_git.text.tokens`, and what was left out.

    Only the first :data:`~genesis_git.text.querybounds.MAX_QUERY_CHARS` characters are read
    and only the :data:`~genesis_git.text.querybounds.MAX_QUERY_TERMS` weightiest terms are
    kept (a term's weight, more when the query repeats it), so that a pasted log
    costs about what a short query does.
    """
    if not query or not query.strip():
        raise UsageError("empty query", hint='say what to look for, e.g. genesis search "order table"')
    bounded, left_out = bound_query(query)
    text = without_chrome(bounded)  # a pasted traceback's words, not the ones every one has
    found, distinct = analyze_query_counted(text, synonym_table(config), MAX_QUERY_TERMS,
                                            lexicon=True)
    terms = _demote_links(text, found)
    if not terms:
        raise UsageError(f"the query {quoted(query)} has only stopwords: nothing to search for",
                           hint="add a word that names what you are looking for")
    if distinct > MAX_QUERY_TERMS:  # and the synonyms of the words kept
        counts = Counter(tokenize(text))
        keep = weightiest({t.term: term_priority(t.weight, counts.get(t.term, 1)) for t in terms})
        terms = [t for t in terms if t.term in keep]
    return terms, bound_notes(len(query), left_out, distinct, len(terms))


def _demote_links(query: str, terms: list[QueryTerm]) -> list[QueryTerm]:
    """Terms that come only from URLs and e-mail addresses count LINK_WEIGHT."""
    if not LINK.search(query):
        return terms
    rest = LINK.sub(" ", query)
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
