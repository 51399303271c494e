"""The reference graph: which file imports which, what a file defines, which tables it mirrors.

Everything here is read from the corpus (the text of its chunks, or its blobs'
prepared facts: :meth:`~genesis_git.impact.corpus.Corpus.definitions` and
:meth:`~genesis_git.impact.corpus.Corpus.py_imports`), deterministically:

* **imports** — Python ``import``/``from … import`` (absolute and relative),
  JavaScript/TypeScript ``import … from``/``require()``, resolved to files of
  the corpus;
* **definitions** — the symbols of the chunker (classes, functions,
  methods), SQL ``CREATE TABLE``, ORM ``__tablename__``;
* **columns** — the columns of a table, from its DDL and its ORM model, so
  that files which mirror a row (schemas, templates, docs) can be found.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from genesis_git.index.facts import class_methods, tables_in_text
from genesis_git.text.tokens import first_token, tokenize

if TYPE_CHECKING:
    from genesis_git.impact.corpus import ChunkDoc, Corpus
    from genesis_git.index.facts import BlobFacts

JS_EXT = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".vue", ".svelte")


@dataclass
class Table:
    name: str
    token: str  # the whole-identifier token (plural folded): orders -> order
    paths: list[str] = field(default_factory=list)  # where it is defined (DDL, model)
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> definition lines
    kinds: dict[str, str] = field(default_factory=dict)  # path -> "ddl" | "alter" | "orm"
    columns: list[str] = field(default_factory=list)


@dataclass
class Graph:
    imports: dict[str, set[str]]  # importer -> imported files (parsed so far)
    importers: dict[str, set[str]]  # imported -> importers (complete with eager imports)
    tables: dict[str, Table]  # by token
    symbols: dict[str, list[tuple[str, str, int, int]]]  # token -> [(path, symbol, start, end)]
    _corpus: Corpus | None = field(default=None, repr=False)
    _index: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _paths: set[str] = field(default_factory=set, repr=False)

    def imports_of(self, path: str) -> set[str]:
        """The files ``path`` imports (parsed once, then kept)."""
        found = self.imports.get(path)
        if found is not None:
            return found
        assert self._corpus is not None
        if path.endswith((".py", ".pyi")):
            specs = self._corpus.py_imports(path)
            targets = resolve_py_imports(path, specs, self._index, self._paths)
        elif path.endswith(JS_EXT):
            targets = resolve_js_imports(path, self._corpus.js_imports(path), self._paths)
        else:
            targets = set()
        targets.discard(path)
        self.imports[path] = targets
        return targets



def _module_names(path: str) -> list[str]:
    """Dotted module names a Python file may be imported as (``src/`` layouts included)."""
    if not path.endswith((".py", ".pyi")):
        return []
    parts = path.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts:
        return []
    names = [".".join(parts[i:]) for i in range(len(parts))]
    return names


def module_index(paths: set[str]) -> dict[str, list[str]]:
    """Every dotted name a Python file of ``paths`` may be imported as -> those files (in
    path order), for :func:`resolve_py_imports`."""
    index: dict[str, list[str]] = defaultdict(list)
    for path in sorted(paths):
        for name in _module_names(path):
            index[name].append(path)
    return dict(index)


def _resolve_py(importer: str, module: str, names: list[str], index: dict[str, list[str]],
                paths: set[str]) -> set[str]:
    dots = len(module) - len(module.lstrip("."))
    mod = module.lstrip(".")
    targets: list[str] = []
    if dots:
        base = importer.split("/")[:-1]
        if dots > 1:
            base = base[: len(base) - (dots - 1)] if dots - 1 <= len(base) else []
        prefix = "/".join(base)
        rel = (prefix + "/" if prefix else "") + mod.replace(".", "/") if mod else prefix
        for cand in ([f"{rel}.py", f"{rel}/__init__.py"] +
                     [f"{rel}/{n}.py" for n in names] + [f"{rel}/{n}/__init__.py" for n in names]):
            cand = cand.lstrip("/")
            if cand in paths:
                targets.append(cand)
        return set(targets)
    found: set[str] = set()
    for name in [mod] + [f"{mod}.{n}" for n in names]:
        hits = index.get(name, [])
        if len(hits) == 1 or (hits and name.count(".") >= 1):
            found.update(hits[:3])
    return found


def resolve_py_imports(path: str, specs: list[tuple[str, list[str]]],
                       index: dict[str, list[str]], paths: set[str]) -> set[str]:
    out: set[str] = set()
    for module, names in specs:
        out |= _resolve_py(path, module, names, index, paths)
    return out


def resolve_js_imports(path: str, specs: list[str], paths: set[str]) -> set[str]:
    out: set[str] = set()
    base = path.split("/")[:-1]
    for spec in specs:
        parts = list(base)
        for piece in spec.split("/"):
            if piece == "..":
                parts = parts[:-1]
            elif piece not in (".", ""):
                parts.append(piece)
        rel = "/".join(parts)
        for cand in [rel] + [rel + e for e in JS_EXT] + [f"{rel}/index{e}" for e in JS_EXT]:
            if cand in paths:
                out.add(cand)
                break
    return out


def _may_name(name: str, wanted: set[str] | None) -> bool:
    """A cheap test that the whole-identifier token of ``name`` can be in ``wanted``."""
    if wanted is None:
        return True
    key = name.lower().replace("_", "").replace("-", "")
    return (key in wanted or key[:-1] in wanted or key[:-3] + "y" in wanted
            or not key.isascii())


@lru_cache(maxsize=1 << 16)
def _whole(name: str) -> str | None:
    """The whole-identifier token of a name (names repeat: ``get``, ``__init__``)."""
    return first_token(name)


Symbols = list[tuple[str, tuple[str, str, int, int]]]  # (token, (path, symbol, start, end))
Tables = list[tuple[str, tuple[int, int], list[str], str]]  # (name, lines, columns, kind)


def definitions_in_facts(path: str, facts: BlobFacts, wanted: set[str] | None
                         ) -> tuple[Symbols, Tables]:
    """What :func:`definitions_in_chunks` reads from a file's chunks, from its blob's facts.

    Every method of a class is listed (the chunk reader skips classes that share
    no token with the query; a method it skips cannot be named by the query).
    """
    symbols: Symbols = []
    tables: Tables = [(name, (first, last), cols, kind)
                      for name, first, last, cols, kind in facts.tables]
    if not facts.may_name(wanted):
        return symbols, tables
    full = facts.full()  # decoded for this call only
    python = path.endswith((".py", ".pyi"))
    for start, end, kind, symbol, _ in sorted(full.symbols, key=lambda c: (c[0], c[1])):
        for part in symbol.split("."):
            tok = _whole(part) if _may_name(part, wanted) else None
            if tok:
                symbols.append((tok, (path, symbol, start, end)))
        if kind == "class" and python:
            for name, line in full.methods.get((start, end, symbol), []):
                tok = _whole(name) if _may_name(name, wanted) else None
                if tok:
                    symbols.append((tok, (path, f"{symbol}.{name}", line, end)))
    return symbols, tables


def definitions_in_chunks(path: str, chunks: list[ChunkDoc], wanted: set[str] | None
                          ) -> tuple[Symbols, Tables]:
    """The symbols (classes, functions, methods) and tables (DDL, ORM) a file's chunks define;
    with ``wanted``, only symbols whose token may be in it."""
    symbols: Symbols = []
    tables: Tables = []
    for chunk in chunks:
        if chunk.symbol:
            for part in chunk.symbol.split("."):
                tok = _whole(part) if _may_name(part, wanted) else None
                if tok:
                    symbols.append((tok, (path, chunk.symbol, chunk.start_line, chunk.end_line)))
        if (chunk.kind == "class" and chunk.symbol and path.endswith((".py", ".pyi"))
                and (wanted is None or not wanted.isdisjoint(chunk.tokens))):
            for name, line in class_methods(chunk.text, chunk.start_line):
                tok = _whole(name) if _may_name(name, wanted) else None
                if tok:  # methods of a class kept whole
                    symbols.append((tok, (path, f"{chunk.symbol}.{name}", line, chunk.end_line)))
        for name, first, last, cols, kind in tables_in_text(chunk.text, chunk.start_line):
            tables.append((name, (first, last), cols, kind))
    return symbols, tables


def build_graph(corpus: Corpus, *, wanted: set[str] | None = None,
                eager_imports: bool = True) -> Graph:
    """Definitions, tables and imports of ``corpus``.

    With ``wanted`` (the query's tokens) only symbols that may be named are
    indexed; with ``eager_imports=False`` imports are parsed on demand by
    :meth:`Graph.imports_of`.  Both only save time: the answers are the same.
    """
    paths = set(corpus.files)
    index = module_index(paths)
    tables: dict[str, Table] = {}
    symbols: dict[str, list[tuple[str, str, int, int]]] = defaultdict(list)
    for path in corpus.files:
        found, defined = corpus.definitions(path, wanted)
        for tok, entry in found:
            symbols[tok].append(entry)
        for name, lines, cols, kind in defined:
            _add_table(tables, name, path, lines, cols, kind)
    graph = Graph({}, {}, tables, dict(symbols))
    graph._corpus, graph._index, graph._paths = corpus, index, paths
    if eager_imports:
        for path in sorted(paths):
            for target in graph.imports_of(path):
                graph.importers.setdefault(target, set()).add(path)
    return graph


def _add_table(tables: dict[str, Table], name: str, path: str, lines: tuple[int, int],
               columns: list[str], kind: str) -> None:
    toks = tokenize(name)
    if not toks:
        return
    table = tables.setdefault(toks[0], Table(name, toks[0]))
    if path not in table.paths:
        table.paths.append(path)
        table.lines[path] = lines
        table.kinds[path] = kind
    elif kind != "alter" and table.kinds[path] == "alter":  # a definition beats an ALTER
        table.lines[path] = lines
        table.kinds[path] = kind
    for c in columns:
        if c not in table.columns:
            table.columns.append(c)


def column_tokens(table: Table) -> list[str]:
    """Whole-identifier tokens of a table's columns, without the generic ``id``."""
    out = []
    for c in table.columns:
        toks = tokenize(c)
        if toks and toks[0] not in ("id",) and toks[0] not in out:
            out.append(toks[0])
    return out
