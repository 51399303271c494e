"""What a query is, when it is one name: an identifier as written, or a plain word.

``identifier_of`` reads ``url_for``, ``Flask.url_for``, ``before_request()``,
``ProgressBar`` or a name in backticks as one identifier; ``word_of`` reads a plain
lower-case word (``echo``, ``progressbar``), which is a name only where the tree
defines it.  :mod:`~genesis_git.search.exact` arranges the results of either.
"""

from __future__ import annotations

import re

from genesis_git.text.tokens import first_token

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_$][A-Za-z0-9_$]*)*")
_DEFINED = re.compile(r"(?:def|class|function|func|fn|struct|interface|trait|enum)\s+(\S+)")


def identifier_of(query: str) -> str | None:
    """The identifier that ``query`` is, as written (``Flask.url_for``, ``before_request``), or
    ``None`` when the query is more than one name.  Written as code, a plain word is a name
    too: in backticks, as a call (``order()``, ``order(``), a method (``.order``) or after a
    keyword that defines it (``def order``, ``class Order``).  A dot at its end is left out
    (``S.``, as an agent writes the object before its attribute)."""
    raw = query.strip()
    q = raw.strip("`").strip()
    keyword = _DEFINED.fullmatch(q)
    if keyword:
        q = keyword.group(1)
    q = _without_full_stop(q)
    as_code = q != raw.removesuffix(".") or q.endswith(("()", "(")) or q.startswith(".")
    q = q.removesuffix("()").removesuffix("(").removeprefix(".")
    if not q or not _IDENT.fullmatch(q):
        return None
    if _plain(q) and not as_code:  # a plain word (order) is a word
        return None
    return q


def word_of(query: str) -> str | None:
    """The plain lower-case word that ``query`` is (``echo``, ``progressbar``, ``has``), or
    ``None``: a name only where the tree defines it
    (:func:`~genesis_git.search.exact.arrange` with ``defined_only``)."""
    q = _without_full_stop(query.strip())
    return q if _plain(q) and q[0].isalpha() else None


def written_name(query: str) -> str | None:
    """The name ``query`` is, as written: its identifier (:func:`identifier_of`), else its
    plain word (:func:`word_of`); ``None`` for a query of more than one name."""
    return identifier_of(query) or word_of(query)


def _without_full_stop(q: str) -> str:
    """``q`` without one dot at its end: ``S.`` (the object whose attribute comes next) is
    ``S``, and ``has.`` ends a sentence; ``..`` is left as it is."""
    return q[:-1] if q.endswith(".") and not q.endswith("..") else q


def tokenless(name: str) -> bool:
    """The index keeps no token of ``name`` (``has``, ``S``, ``a``: a stopword or one
    letter), so only the text of the files can say where it is
    (:func:`~genesis_git.search.exact.arrange`'s ``lines``)."""
    return first_token(last_part(name)) is None


def _plain(q: str) -> bool:
    """``q`` is a plain lower-case word: ASCII letters and digits, no capital."""
    return q.isascii() and q.isalnum() and q.islower()


def last_part(name: str) -> str:
    """The name that ``name`` qualifies last: ``url_for`` of ``Flask.url_for``."""
    return re.split(r"\.|::", name)[-1]


def symbol_parts(symbol: str | None) -> list[str]:
    """The names of a chunk's symbol, outermost first: ``Basic.has``, ``Foo::bar``,
    ``Editor#edit``, ``pkg/mod`` (``[]`` for none)."""
    return re.split(r"\.|::|#|/", symbol) if symbol else []
