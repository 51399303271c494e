"""A query that is one identifier: its definitions first, then one file after another.

An agent that searches ``url_for`` or ``SESSION_COOKIE_PARTITIONED`` wants what
``git grep -w`` would show, best first: where the name is defined, then the
files that use it, not ten chunks of the one file that repeats it most.  So
when the whole query is one identifier (``url_for``, ``Flask.url_for``,
``before_request()``, ``ProgressBar``, ``echo()``, a name in backticks), the
rows that contain its whole token are put in three tiers, each kept in the
fused order.  A plain lower-case word (``order``, ``echo``) is a word, not a
name, unless a function, class or method of the tree is called exactly that, or at
most :data:`VARIABLE_FILES` modules assign it at their top level
(:func:`~genesis_git.search.identifiers.word_of`, :func:`_module_variable`): ``echo``
in a project that defines ``def echo`` is looked for as ``git grep -w`` would.

1. **definition** (qualified first, then the chunker's before a text's, top-level
   before methods, outside tests before tests): the chunk's symbol is the name
   (``def url_for``, a method ``Flask.url_for``), or its text defines it
   (``class``/``def``/``function``/``const``… *name* followed by code, not by prose:
   ``(``, ``:``, ``{``, ``=``, the end of the line, ``extends``…; *name* ``=`` or ``:`` at
   the start of a line, also in a chain ``joule = J = …``, or a quoted key ``"NAME":``
   of a mapping);
2. **name**: the text holds the name exactly as written (case and underscores);
3. **token**: the text holds only its token (``UrlFor``, ``urlfor``).

After the definitions, the rows of tiers 2 and 3 are taken in rounds, each file's
best row in the first round, its second in the second, so that the first
results cover as many of the files that use the name as they can.  Rows that
match the query otherwise (a path, a part of the name) follow in their order.
Only the :data:`CANDIDATES` best rows that hold the token are looked at, and the
text of the first :data:`READ_TEXTS` of them is read; when fewer files than the
results asked for hold the name as written, ``git grep -w`` finds it in more files
that hold its token (:func:`_widen`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from genesis_git.index.chunk import is_code
from genesis_git.index.classify import is_test_path
from genesis_git.search.chunkrows import chunk_id, defining_rows, read_texts
from genesis_git.search.identifiers import last_part, symbol_parts
from genesis_git.search.session_index import SessionIndex
from genesis_git.search.termindex import bm25
from genesis_git.search.textlines import (
    LinesOf,
    indented,
    is_python,
    keyword_definition,
    line_definition,
    line_scores,
    whole_word,
)
from genesis_git.store.blobs import chunk_details
from genesis_git.text.tokens import first_token

if TYPE_CHECKING:
    from genesis_git.search.inherit import Lineage

CANDIDATES = 200
DEFINITIONS_PER_FILE = 2
READ_TEXTS = 40
WIDEN_FILES = 40
WIDEN_CHUNKS = 3
FALLBACK_FILES = 500  # files with its token that git reads for a name (_widen, _in_token_files)
VARIABLE_FILES = 3  # modules that may assign a plain word for it to be a name (_module_variable)
FIRST_READ = 50  # of those, the files git reads first when the results lack files (_widen)
DEFINITION, NAME, TOKEN = "definition", "name", "token"

class Arranged(NamedTuple):
    """What :func:`arrange` gives: the rows in order, each looked-at row's tier, and for a
    name the index keeps no token of, each candidate's text score (its lines that hold the
    name, :func:`~genesis_git.search.textlines.line_scores`)."""

    order: list[int]
    tiers: dict[int, str]
    text: dict[int, float]


def arrange(conn: sqlite3.Connection, idx: SessionIndex, rows: Sequence[int], mask: np.ndarray,
            written: str, *, defined_only: bool = False, want: int = 10,
            lines: LinesOf | None = None,
            lineage: Lineage | None = None) -> Arranged:
    """``rows`` (the fused order) rearranged for the identifier ``written`` (as
    :func:`~genesis_git.search.identifiers.identifier_of` gives it), and each looked-at
    row's tier (see the module).  With ``defined_only`` (a plain word,
    :func:`~genesis_git.search.identifiers.word_of`), ``rows`` stay as they are unless a
    chunk is a function, class or method of that name or a few modules assign it
    (:func:`_module_variable`), and only such chunks are its definitions
    (``command = ctx.command`` inside a function is not).  When fewer than ``want`` files
    of the candidates hold the name as written, more files are looked at (:func:`_widen`).

    A qualified name (``Context.invoke``) puts the definitions whose symbol ends with the
    qualifier too first (when none does, those of the nearest class ``Context`` inherits
    the method from, :func:`_inherited`: ``Matrix.det`` puts ``MatrixBase.det`` first),
    then the chunks the chunker made of a definition (``def echo``)
    before a definition found in a text (a code sample of the docs), and a top-level one
    (``def diff``, ``known_functions = {``) before one in a method (``Poly.diff``,
    ``self.known_functions = …``); at most
    :data:`DEFINITIONS_PER_FILE` definitions of one file lead, the others join the rounds.

    A name the index keeps no token of (:func:`~genesis_git.search.identifiers.tokenless`)
    is looked for in the files' text: ``lines(name)`` gives the lines of each path that
    hold it as a whole word, and a row scores the matches its chunk holds
    (:func:`~genesis_git.search.textlines.line_scores`); without ``lines`` it finds
    nothing.  A name with a token that no chunk and no top-level line among the candidates
    defines (``current_app: FlaskProxy = …`` in a file that says it less than the docs)
    gets its definitions from the lines of the files with its token
    (:func:`_in_token_files`)."""
    name = last_part(written)
    if idx.n_rows == 0:
        return Arranged(list(rows), {}, {})
    token = first_token(name)
    text_defs: dict[int, bool] = {}
    if token is not None:
        per_chunk, _ = bm25(idx.chunk_parts_mult(), [(token, 1.0)])
        if not per_chunk:
            return Arranged(list(rows), {}, {})
        score = np.concatenate(per_chunk)[idx.rows_chunk]
    elif lines is not None:
        score, text_defs = _git_lines(idx, lines, name)
    else:
        return Arranged(list(rows), {}, {})
    holds = (score > 0) & mask
    if not holds.any():
        return Arranged(list(rows), {}, {})
    chunked = defining_rows(conn, idx, holds, name)
    declared = {**{r: top for r, top in text_defs.items() if holds[r]}, **chunked}
    if defined_only and not declared:  # a plain word: a name if a module assigns it
        declared = _module_variable(conn, idx, [r for r in rows if holds[r]][:CANDIDATES], name)
        if not declared:
            return Arranged(list(rows), {}, {})
    everywhere = holds.copy()
    first = [r for r in rows if holds[r]][:CANDIDATES]
    seen = set(first)
    first += [r for r in declared if r not in seen]  # however far down the fused order
    if len(first) < CANDIDATES:  # rows that hold the name but missed the fused lists
        holds[np.asarray(rows, dtype=np.int64)] = False
        holds[np.asarray(first, dtype=np.int64)] = False  # a definition is not taken twice
        extra = np.flatnonzero(holds)
        extra = extra[np.argsort(-score[extra], kind="stable")][:CANDIDATES - len(first)]
        first += [int(r) for r in extra]
    candidates = first
    tiers, qualified, in_code = _tiers(conn, idx, candidates, name, _qualifier(written),
                                       declared, defined_only)
    for r, top in in_code.items():
        declared.setdefault(r, top)
    if _qualifier(written) and not qualified and lineage is not None:
        qualified = _inherited(conn, idx, [r for r in candidates if tiers[r] == DEFINITION],
                               lineage, _qualifier(written)[0], everywhere, name)
        for r in qualified.difference(tiers):
            candidates.append(r)
            tiers[r] = DEFINITION
    on_lines = score if token is None else None  # the name's lines, once git has read them
    if (lines is not None and token is not None and not defined_only
            and not any(r in chunked or declared.get(r) for r in tiers
                        if tiers[r] == DEFINITION)):  # no chunk or top-level line defines it
        on_lines, defined = _in_token_files(idx, lines, name, everywhere)
        for r, top in defined.items():
            if r not in tiers:
                candidates.append(r)
            tiers[r], declared[r] = DEFINITION, top
    for r, tier in _widen(idx, lines, name, everywhere, score, on_lines, candidates, tiers,
                          want).items():
        if r not in tiers:
            candidates.append(r)
        tiers[r] = tier
    definitions: list[int] = []
    per_file: dict[str, int] = {}
    later: list[int] = []
    for r in sorted((r for r in candidates if tiers[r] == DEFINITION),
                    key=lambda r: (r not in qualified, r not in chunked, r not in declared,
                                   not declared.get(r, False), is_test_path(idx.row_path(r)))):
        path = idx.row_path(r)
        per_file[path] = per_file.get(path, 0) + 1
        (definitions if per_file[path] <= DEFINITIONS_PER_FILE else later).append(r)
    others = later + [r for r in candidates if tiers[r] == NAME] + [r for r in candidates
                                                                    if tiers[r] == TOKEN]
    chosen = set(candidates)
    tail = [r for r in rows if r not in chosen]
    text = {} if token is not None else {r: float(score[r]) for r in candidates}
    shown = {idx.row_path(r) for r in definitions}
    return Arranged(definitions + _rounds(idx, others, shown) + tail, tiers, text)


def _git_lines(idx: SessionIndex, lines: LinesOf, name: str,
               paths: Sequence[str] | None = None) -> tuple[np.ndarray, dict[int, bool]]:
    """:func:`~genesis_git.search.textlines.line_scores` of the lines git finds of ``name``
    (in ``paths`` only, when given)."""
    return line_scores(idx, lines(name, paths), name)


def _in_token_files(idx: SessionIndex, lines: LinesOf, name: str, holds: np.ndarray
                    ) -> tuple[np.ndarray, dict[int, bool]]:
    """The lines of ``name`` in the files of the rows ``holds`` (:func:`_git_lines`), and
    the rows among ``holds`` whose lines define it (with whether at the top level).  When
    those files are more than :data:`FALLBACK_FILES` (``Matrix``: ``matrix`` is in most of
    sympy), git reads the whole tree at once, which costs less than naming them."""
    files = {idx.row_path(r) for r in np.flatnonzero(holds).tolist()}
    written, found = _git_lines(idx, lines, name,
                                sorted(files) if len(files) <= FALLBACK_FILES else None)
    return written, {r: top for r, top in found.items() if holds[r]}


def _module_variable(conn: sqlite3.Connection, idx: SessionIndex, rows: list[int], name: str
                     ) -> dict[int, bool]:
    """The rows among ``rows`` (the texts of the first candidates in source code are read)
    that assign ``name`` at the top level of a module that is no test (sympy's
    ``oo = S.Infinity``), when at most :data:`VARIABLE_FILES` files do: ``logger = getLogger(__name__)`` in two hundred
    modules, or ``app = Flask(__name__)`` in every example, is a convention, not the
    definition a plain word asks for."""
    modules = [r for r in rows if is_code(path := idx.row_path(r)) and not is_test_path(path)]
    _, _, in_code = _tiers(conn, idx, modules, name, [], {})
    found = {r: True for r, top in in_code.items() if top}
    return found if 0 < len({idx.row_path(r) for r in found}) <= VARIABLE_FILES else {}


def _widen(idx: SessionIndex, lines: LinesOf | None, name: str, holds: np.ndarray,
           score: np.ndarray, on_lines: np.ndarray | None, candidates: list[int],
           tiers: Mapping[int, str], want: int) -> dict[int, str]:
    """Rows of more files that hold ``name`` as written (each a :data:`NAME`), when fewer
    than ``want`` files of the candidates do.  ``App``, ``Node`` or ``TocTree`` share their
    token with a word (``app``, ``node``, ``toctree``) that hundreds of chunks hold more
    often than the files that use the name, so those files rank below the candidates.
    ``git grep -w`` says which rows hold the name, in the files that hold its token (the
    :data:`FIRST_READ` with the best token scores, then up to :data:`FALLBACK_FILES` when
    those were not enough: ``Symbol`` is in the first few), unless ``on_lines`` has them
    already (a name without a token, or one that git read for its definitions).  Files
    are taken by their best token score, each with its first such row (where a file
    imports the name) and its best ones, :data:`WIDEN_CHUNKS` at most, :data:`WIDEN_FILES`
    files at most."""
    found = {idx.row_path(r) for r in candidates if tiers.get(r) in (DEFINITION, NAME)}
    if len(found) >= want or lines is None:
        return {}
    if on_lines is None:  # the files with the best token scores, FALLBACK_FILES at most
        rows = np.flatnonzero(holds)
        files: dict[str, None] = {}
        for r in rows[np.argsort(-score[rows], kind="stable")].tolist():
            path = idx.row_path(r)
            if path not in found:
                files[path] = None
                if len(files) >= FALLBACK_FILES:
                    break
        best = list(files)
        on_lines = np.zeros_like(score)
        for batch in (best[:FIRST_READ], best[FIRST_READ:]):
            if not batch:
                break
            part, _ = _git_lines(idx, lines, name, sorted(batch))
            on_lines += part
            if len(found | {idx.row_path(r) for r in np.flatnonzero(part).tolist()}) >= want:
                break
    order = np.flatnonzero((on_lines > 0) & holds)
    first_of: dict[str, int] = {}  # a file imports a name at its top: its first such row
    for r in order.tolist():
        first_of.setdefault(idx.row_path(r), r)
    order = order[np.argsort(-score[order], kind="stable")]
    groups: dict[str, list[int]] = {}
    for r in order.tolist():
        path = idx.row_path(r)
        if path in found or tiers.get(r) in (DEFINITION, NAME):
            continue
        group = groups.get(path)
        if group is None:
            if len(groups) >= WIDEN_FILES:
                continue
            top = first_of[path]
            leads = top != r and tiers.get(top) not in (DEFINITION, NAME)
            group = groups[path] = [top] if leads else []
        if len(group) < WIDEN_CHUNKS:
            group.append(r)
    return {r: NAME for group in groups.values() for r in group}


def _inherited(conn: sqlite3.Connection, idx: SessionIndex, rows: list[int], lineage: Lineage,
               written: str, holds: np.ndarray, name: str) -> set[int]:
    """The rows of ``rows`` (definitions) in the nearest class ``written`` inherits ``name``
    from: a method's chunk or the chunk of a class that holds the method; else, of the
    rows ``holds``, a chunk of that class whose text defines ``name`` (``UsageError.show``:
    a short class is one chunk, which may be no candidate).  A class that only declares
    it for type checkers (:meth:`~genesis_git.search.inherit.Lineage.runs`) gives way to
    the next, unless no class has more."""
    ids = {chunk_id(idx, r): r for r in rows}
    details = {ids[d[0]]: d for d in chunk_details(conn, sorted(ids))}
    owner = {r: parts[-1:] if d[7] == "class" else parts[-2:-1] if parts[-1:] == [name]
             else [] for r, d in details.items() if (parts := symbol_parts(d[6]))}
    fallback: set[int] = set()
    for ancestor in lineage.ancestors(written):
        found = {r for r, parts in owner.items() if parts == [ancestor]}
        if not found:
            held = {chunk_id(idx, r): r for r in defining_rows(conn, idx, holds, ancestor)
                    if r not in owner}
            details.update({held[d[0]]: d for d in chunk_details(conn, sorted(held))})
            texts = read_texts(conn, idx, (details[r][1:3] for r in held.values()))
            found = {r for r in held.values() if DEFINITION == _text_tier(
                texts.get(details[r][1:3], ""), name, is_python(idx.row_path(r)))}
        running = {r for r in found
                   if lineage.runs(idx.row_path(r), details[r][3], details[r][4], name)}
        if running:
            return running
        fallback = fallback or found
    return fallback


def _qualifier(written: str) -> list[str]:
    parts = re.split(r"\.|::", written)
    return parts[-2:] if len(parts) > 1 else []


def _tiers(conn: sqlite3.Connection, idx: SessionIndex, rows: list[int], name: str,
           qualifier: list[str], declared: Mapping[int, bool], chunks_only: bool = False
           ) -> tuple[dict[int, str], set[int], dict[int, bool]]:
    """The tier of each of ``rows``, the rows of the qualifier's class, and the rows of
    source code whose text defines ``name``, each with whether at the top level
    (``known_functions = {``, not a method's ``self.known_functions = …``); ``declared``
    are the rows whose chunk defines ``name``
    (:func:`~genesis_git.search.chunkrows.defining_rows`).  With ``chunks_only``, a text
    that defines ``name`` (``name = …``) is of the name tier."""
    ids = [chunk_id(idx, r) for r in rows]
    details = {d[0]: d for d in chunk_details(conn, sorted(set(ids)))}
    read = {details[i][1] for i in ids[:READ_TEXTS] if i in details}
    out: dict[int, str] = {}
    qualified: set[int] = set()
    to_read: list[tuple[int, int, int, str | None]] = []  # (row, blob, ord, symbol)
    for row, cid in zip(rows, ids, strict=True):
        d = details.get(cid)
        if d is None:  # pragma: no cover - the cache lost a chunk between two statements
            out[row] = TOKEN
            continue
        _, blob_id, ord_, _, _, _, symbol, _ = d
        if row in declared:
            out[row] = DEFINITION
            if qualifier and symbol_parts(symbol)[-len(qualifier):] == qualifier:
                qualified.add(row)
        elif blob_id in read:  # a blob of the first candidates: its chunk's text is looked at
            to_read.append((row, blob_id, ord_, symbol))
        else:
            out[row] = TOKEN
    texts = read_texts(conn, idx, ((blob_id, ord_) for _, blob_id, ord_, _ in to_read))
    in_code: dict[int, bool] = {}
    for row, blob_id, ord_, symbol in to_read:
        text = texts.get((blob_id, ord_))
        python = is_python(idx.row_path(row))
        out[row] = tier = TOKEN if text is None else _text_tier(text, name, python)
        if tier == DEFINITION and chunks_only:
            out[row] = NAME
        elif tier == DEFINITION and text is not None and is_code(idx.row_path(row)):
            in_code[row] = _at_top(text, name, python)
        parts = symbol_parts(symbol)
        if tier == DEFINITION and qualifier and parts and parts[-1] == qualifier[0]:
            qualified.add(row)  # the class holds the method
    return out, qualified, in_code


def _text_tier(text: str, name: str, python: bool = False) -> str:
    """``text``'s tier for ``name``: the definition and whole-name patterns are only tried on
    the lines that hold the name (with the line of a keyword above it, :func:`_around`),
    where every match of theirs lies, and never on a text without the name
    (:func:`~genesis_git.search.textlines.line_definition`, then
    :func:`~genesis_git.search.textlines.keyword_definition`)."""
    if name not in text:
        return TOKEN
    windows = _around(text, name)
    at_start, after_keyword = line_definition(name), keyword_definition(name, python)
    if any(at_start.search(w) or after_keyword.search(w) for w in windows):
        return DEFINITION
    exact = whole_word(name)
    return NAME if any(exact.search(w) for w in windows) else TOKEN


def _at_top(text: str, name: str, python: bool = False) -> bool:
    """Whether a line of ``text`` that defines ``name`` (as :func:`_text_tier` reads it) is
    at the top level: the name's line is not indented."""
    at_start, after_keyword = line_definition(name), keyword_definition(name, python)
    for window in _around(text, name):
        line = window[window.rfind("\n") + 1:]  # the name's line
        if not indented(line) and (at_start.search(line) or after_keyword.search(window)):
            return True
    return False


def _around(text: str, name: str) -> list[str]:
    """Each line of ``text`` that holds ``name``, from the start of the last line above it
    that is not blank (a keyword there reaches the name over white space) to its end.

    Every window starts at a line's start and ends at a line's end, so ``^``, ``$``,
    ``\\b`` and the lookarounds of the definition patterns see at its edges what they
    see in the whole text; a match of those patterns spans one
    line, or a keyword's line, blank lines and the name's line."""
    out: list[str] = []
    pos = text.find(name)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        while start > 0:  # back over blank lines to a line that is not blank
            above = text.rfind("\n", 0, start - 1) + 1
            blank = text[above:start - 1].isspace() or above == start - 1
            start = above
            if not blank:
                break
        out.append(text[start:end])
        pos = text.find(name, end)
    return out


def _rounds(idx: SessionIndex, rows: list[int], shown: set[str]) -> list[int]:
    """Each file's first row, then each file's second, …; files in order of their first row,
    those ``shown`` already (by a definition) after the others."""
    per_file: dict[str, list[int]] = {}
    for r in rows:
        per_file.setdefault(idx.row_path(r), []).append(r)
    per_file = dict(sorted(per_file.items(), key=lambda item: item[0] in shown))
    out: list[int] = []
    depth = 0
    while len(out) < len(rows):
        for group in per_file.values():
            if depth < len(group):
                out.append(group[depth])
        depth += 1
    return out
