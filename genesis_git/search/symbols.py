"""Symbols: where a name is defined, who refers to it, what a file contains.

Read from what indexing already keeps of every blob (its facts,
:mod:`genesis_git.index.facts`: the chunker's classes, functions and methods, the
tables of SQL DDL and ORM models) — the definitions the reference graph of
impact is built from — so no language server is needed:

* :meth:`SymbolIndex.define` — the definitions of a name: ``cancel_order``,
  ``OrderController.create_order`` (a dotted name matches its tail), a table;
  exact case first, any case when nothing matches exactly;
* :meth:`SymbolIndex.outline` — the definitions of one file in line order;
* :func:`references` — every line of the session's files that holds the name
  as a whole word, other than its definitions (:mod:`genesis_git.search.grep`),
  the files that define it first.

Every location is a ``path:line``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

from genesis_git.index.classify import is_test_path
from genesis_git.search.grep import GrepMatch, grep

if TYPE_CHECKING:
    from genesis_git.index.facts import BlobFacts
    from genesis_git.search.inherit import Lineage
    from genesis_git.search.session_index import SessionIndex


@dataclass(frozen=True)
class Definition:
    name: str  # as the file spells it, dotted for a method: OrderController.create_order
    kind: str  # class, function, method, table, section, …
    path: str
    line: int
    end_line: int
    via: tuple[str, ...] = ()  # inherited: the class asked for, then the one that defines it

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "kind": self.kind, "path": self.path, "line": self.line,
               "end_line": self.end_line, "location": self.location}
        return {**out, "via": list(self.via)} if self.via else out


def definitions_of(path: str, facts: BlobFacts) -> list[Definition]:
    """What one blob defines, in line order (a table once, as a table; a long definition
    once, :func:`_whole`)."""
    full = facts.full()
    out: list[Definition] = []
    tables = {(name.lower(), first) for name, first, _, _, _ in full.tables}
    for name, first, last, _, kind in full.tables:
        out.append(Definition(name, "table" if kind != "alter" else "alter table", path, first,
                              last))
    for start, end, kind, symbol, pieces in _whole(full.symbols):
        if (symbol.lower(), start) in tables:
            continue
        out.append(Definition(symbol, "method" if kind == "method" else kind, path, start, end))
        methods = [m for piece in pieces for m in full.methods.get(piece, [])]
        for i, (name, line) in enumerate(methods):
            stop = methods[i + 1][1] - 1 if i + 1 < len(methods) else end
            out.append(Definition(f"{symbol}.{name}", "method", path, line, max(line, stop)))
    unique = {(d.name, d.line): d for d in out}  # a method chunk and its class's list agree
    return sorted(unique.values(), key=lambda d: (d.line, d.end_line, d.name))


class SymbolIndex:
    """The definitions of a session's files, by name.  A file's definitions are made when a
    name its facts hold is first asked for (or its outline): most of a tree's files are
    never read by one ``genesis symbols``."""

    def __init__(self, files: dict[str, BlobFacts | None]):
        self._files = files
        self.paths = set(files)
        self._sorted = sorted(files)
        self._made: dict[str, list[Definition]] = {}
        self._named: dict[tuple[str, bool], list[Definition]] = {}

    def definitions(self, path: str) -> list[Definition]:
        """What ``path`` defines, in line order (``[]`` for a file without facts)."""
        if path not in self._made:
            facts = self._files.get(path)
            self._made[path] = definitions_of(path, facts) if facts is not None else []
        return self._made[path]

    def named(self, tail: str, fold: bool = False) -> list[Definition]:
        """The definitions whose last part is ``tail`` (of any case with ``fold``), by path;
        only the files whose facts may hold it are read (:meth:`BlobFacts.may_hold`)."""
        if (tail, fold) not in self._named:
            def key(name: str) -> str:
                last = name.rsplit(".", 1)[-1]
                return last.lower() if fold else last

            paths = [p for p in self._sorted
                     if (facts := self._files[p]) is not None and facts.may_hold(tail, fold)]
            self._named[tail, fold] = [d for p in paths for d in self.definitions(p)
                                       if key(d.name) == key(tail)]
        return self._named[tail, fold]

    def define(self, name: str, variables: Callable[[str], list[Definition]] | None = None,
               lineage: Lineage | None = None) -> list[Definition]:
        """The definitions of ``name`` (``Class.method`` narrows to that class); when no
        class, function, method or table has that name as written, the module-level
        ``variables(name)`` of that name, and only then those of any case.  A method that
        ``Class`` does not define is looked for in the classes it derives from
        (:class:`~genesis_git.search.inherit.Lineage`), nearest first: ``Matrix.det`` is
        ``MatrixBase.det``, ``via`` ``Matrix``."""
        name = name.strip()
        tail = name.rsplit(".", 1)[-1]
        found = self.named(tail)
        if not found and variables is not None:
            found_variables = variables(name)
            if found_variables:
                return found_variables
        found = found or self.named(tail, fold=True)
        if "." in name:
            dotted = [d for d in found if d.name == name or d.name.endswith("." + name)]
            if lineage is not None:  # a function nested in a method is no method of its class
                dotted = [d for d in dotted if not lineage.nested(d.path, d.line, tail)]
                if not dotted and found:
                    dotted = _inherited(found, name, lineage)
            lowered = name.lower()
            found = dotted or [d for d in found if d.name.lower() == lowered
                               or d.name.lower().endswith("." + lowered)]
        return sorted(found, key=_definition_rank)

    def outline(self, path: str) -> list[Definition] | None:
        """The definitions of ``path`` in line order; ``None`` when the session has no such
        file."""
        wanted = path.strip().replace("\\", "/")
        while wanted.startswith("./"):
            wanted = wanted[2:]
        return self.definitions(wanted) if wanted in self.paths else None


_DECLARED = r"^(?:export[ \t]+)?(?:const|let|var|val)[ \t]+{}(?![\w$])"


def assignments(root: Path, name: str, paths: set[str]) -> list[Definition]:
    """The module-level variables called ``name`` (its tail) in the code of ``paths``: a
    line that is not indented and assigns it (``S = Registry()``, ``current_app: T = …``,
    ``joule = J = …``, ``export const API = …``), as ``git grep -w`` finds it in the
    working tree; kind ``variable``.  The blobs' facts keep classes, functions, methods and
    tables only, so a constant had no definition."""
    from genesis_git.index.chunk import is_code
    from genesis_git.search.textlines import (
        defining_lines,
        indented,
        line_definition,
        word_lines,
    )

    tail = name.strip().rsplit(".", 1)[-1]
    if not tail or "." in name.strip():
        return []
    assigns = line_definition(tail)
    declares = re.compile(_DECLARED.format(re.escape(tail)), re.MULTILINE)
    out: list[Definition] = []
    for path, found in word_lines(root, tail).items():
        if path not in paths or not is_code(path):
            continue
        texts = found.lines()
        out += [Definition(tail, "variable", path, found.numbers[i], found.numbers[i])
                for i in defining_lines(found.text, assigns, declares, numbers=found.numbers)
                if not indented(texts[i])]
    return sorted(out, key=_definition_rank)


def _inherited(found: list[Definition], name: str, lineage: Lineage) -> list[Definition]:
    """The definitions among ``found`` (those of the method's name) of the nearest class
    ``name``'s class derives from that has one, each with its ``via``; a class that only
    declares it for type checkers (:meth:`~genesis_git.search.inherit.Lineage.runs`) gives
    way to the next, unless no class has more."""
    written, _, method = name.rpartition(".")
    owner = written.rsplit(".", 1)[-1]
    fallback: list[Definition] = []
    for ancestor in lineage.ancestors(owner):
        own = [replace(d, via=(owner, ancestor)) for d in found
               if d.name.rpartition(".")[0].rsplit(".", 1)[-1] == ancestor
               and d.name.endswith("." + method)]
        running = [d for d in own if lineage.runs(d.path, d.line, d.end_line, method)]
        if running:
            return running
        fallback = fallback or own
    return fallback


WINDOW_LINES = 10  # a chunk cut from a longer one has at least this many lines


def _whole(symbols: list[tuple[int, int, str, str, str | None]]
           ) -> list[tuple[int, int, str, str, list[tuple[int, int, str]]]]:
    """The chunks that carry a symbol, one per definition.  The chunker cuts a long
    definition into windows (a method of 200 lines is three chunks of ``Add.flatten``), and
    a long class into its head, its methods and the pieces of its body between them
    (``MatrixBase`` again at line 1479).  A window that follows a chunk of the same symbol
    line for line joins it, and a class's piece that follows one of its methods joins the
    class, which reaches the end of its last method or piece; a definition never joins a
    short one (``@overload`` stubs one under the other stay apart).  Each with the
    ``(start, end, symbol)`` of its chunks."""
    out: list[tuple[int, int, str, str, list[tuple[int, int, str]]]] = []
    last: dict[str, int] = {}  # a symbol -> its place in out
    inside: str | None = None  # the class whose head, method or piece came just before
    prev: tuple[int, int, str, str] = (-2, -2, "", "")
    for start, end, kind, symbol, _ in sorted(symbols, key=lambda s: (s[0], s[1])):
        owner = symbol.rpartition(".")[0] if kind == "method" else None
        window = (start == prev[1] + 1 and prev[2:] == (kind, symbol)
                  and prev[1] - prev[0] + 1 >= WINDOW_LINES)
        piece = kind == "class" and prev[2] == "method" and inside == symbol
        if window or piece:
            first, _, k, s, pieces = out[last[symbol]]
            out[last[symbol]] = (first, end, k, s, [*pieces, (start, end, symbol)])
        else:
            last[symbol] = len(out)
            out.append((start, end, kind, symbol, [(start, end, symbol)]))
        if owner is not None and owner == inside:  # the class reaches its method's end
            first, _, k, s, pieces = out[last[owner]]
            out[last[owner]] = (first, end, k, s, pieces)
        inside = symbol if kind == "class" else owner if owner == inside else None
        prev = (start, end, kind, symbol)
    return out


def _definition_rank(d: Definition) -> tuple[int, int, str, int]:
    """Code before tests, tests before docs and the rest; then path and line."""
    return (1 if is_test_path(d.path) else 0, d.path.count("/"), d.path, d.line)


def candidate_paths(idx: SessionIndex, name: str) -> set[str] | None:
    """The session's files whose indexed terms hold the whole-identifier token of ``name`` (a
    superset of the files that hold the name as a whole word); ``None`` when the name has no
    such token."""
    import numpy as np

    from genesis_git.search.base.build import unique
    from genesis_git.search.termindex import term_hash
    from genesis_git.text.tokens import first_token

    token = first_token(name)
    if not token:
        return None
    h = term_hash(token)
    total = sum(int(part.n) for part in idx.chunk_parts)
    hit = np.zeros(total, dtype=bool)
    offset = 0
    for part in idx.chunk_parts:
        docs, _ = part.content.postings(h)
        hit[offset + docs.astype(np.int64)] = True
        offset += int(part.n)
    rows = hit[idx.rows_chunk]
    return {idx.map.paths[int(i)] for i in unique(idx.rows_map[rows])}


def references(conn: Any, root: Path, session_id: str, name: str,
               defined: list[Definition], *, paths: tuple[str, ...] = (),
               idx: SessionIndex | None = None) -> list[GrepMatch]:
    """Every line that holds the tail of ``name`` as a whole word, less its definitions' own
    lines; the files that define it first, then by the number of mentions.  With the session's
    search base (``idx``) only the files whose terms hold the name are read; when that would
    leave out a file that defines it (a name the tokenizer keeps no term for), all are."""
    tail = name.strip().rsplit(".", 1)[-1]
    own = {(d.path, d.line) for d in defined}
    only = candidate_paths(idx, tail) if idx is not None else None
    if only is not None and not {d.path for d in defined} <= only:
        only = None
    found = grep(conn, root, session_id, tail, regex=False, word=True, paths=paths, only=only)
    return [m for m in found.matches if (m.path, m.line) not in own]
