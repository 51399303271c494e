"""A name the index keeps no token of, found in the files' text as ``git grep -w`` finds it.

The tokenizer drops stopwords and single letters, so ``has``, ``S`` or ``a`` have no
postings: the exact search (:mod:`~genesis_git.search.exact`) asks git for the lines
that hold such a name (:func:`word_lines`, the working tree as it is) and scores each
row by the lines of its chunk (:func:`line_scores`), a line that defines the name most.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from genesis_git.git.greplines import grep_records
from genesis_git.git.repo import run_git
from genesis_git.index.chunk import is_code, language_of
from genesis_git.search.grep import compile_pattern, file_matches
from genesis_git.search.session_index import SessionIndex

DEFINING_LINE = 1000.0
KEYWORDS = (r"def|class|function|func|fn|const|let|var|val|type|interface|struct|enum|trait|"
            r"module|macro|object|record|table|view|procedure|sub|alias")


# what follows a name that a keyword defines: code (``(``, ``:``, ``{``, ``=``, the end of
# the line, ``extends``…), not prose ("If the class has public attributes")
_CODE_AFTER = (r"(?=[ \t\r]*(?:[(:{<=;,\[?!]|$|"
               r"(?:extends|implements|as|where|do|struct|interface|func)\b))")


# in Python only ``def``, ``class`` and ``type`` define, and code follows on the line
# (``def f(``, ``class C:``, ``type T =``): "of type Matrix" ending a docstring's line is prose
_PYTHON_KEYWORDS = r"def|class|type"
_PYTHON_CODE_AFTER = r"(?=[ \t\r]*[(:=\[])"


def _after_keyword(n: str, python: bool = False) -> str:
    keywords, after = (_PYTHON_KEYWORDS, _PYTHON_CODE_AFTER) if python else (KEYWORDS, _CODE_AFTER)
    return rf"\b(?:{keywords})\s+(?:[\w$]+\.)?{n}(?![\w$]){after}"


def _at_line_start(n: str) -> str:
    # indented, a line that ends with a comma is a keyword argument or an item (``S = 1,``
    # in a call); at the top level, an assignment that goes on (``G = Head("G", [L],``)
    return (rf"^(?:[ \t]+(?![^\n]*,[ \t]*$))?(?:export[ \t]+)?(?:self\.|this\.)?"
            rf"(?:[\w$.]+[ \t]*=[ \t]*)*{n}[ \t]*(?::[^=\n]*)?=(?!=)"
            rf"|^[ \t]*[\"']{n}[\"'][ \t]*:"
            rf"|^[ \t]*{n}[ \t]*:(?!:)")


@lru_cache(maxsize=256)
def keyword_definition(name: str, python: bool = False) -> re.Pattern[str]:
    """A keyword that defines ``name``, then the name followed by code (``def has(``,
    ``class Basic:``, ``type Node struct {``), not by prose ("the class has public …");
    with ``python``, Python's keywords only, and code on the same line."""
    return re.compile(_after_keyword(re.escape(name), python), re.MULTILINE)


def is_python(path: str) -> bool:
    return language_of(path) == "python"


@lru_cache(maxsize=256)
def line_definition(name: str) -> OneLine:
    """A line that defines ``name``: an assignment (``S = …``, ``a = b = S = …``) or a key
    (``"NAME": …``, ``NAME: …``)."""
    n = re.escape(name)
    # any line it matches holds, after the name, one of these (the name first, which
    # ``re`` finds fast)
    return OneLine(re.compile(_at_line_start(n), re.MULTILINE),
                   re.compile(rf"{n}(?:[ \t]*[:=]|[\"'][ \t]*:)"))


@dataclass(frozen=True)
class OneLine:
    """A pattern whose matches begin at a line's start and stay in that line, and what
    every line it matches holds (``holds``): :meth:`finditer` tries it only on such
    lines, with the matches a pass over the whole text finds."""

    pattern: re.Pattern[str]
    holds: re.Pattern[str]

    def search(self, text: str) -> re.Match[str] | None:
        """The first match (:meth:`finditer`'s), as ``pattern.search(text)`` finds it."""
        return next(self.finditer(text), None)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        end = -1
        for found in self.holds.finditer(text):
            if found.start() <= end:  # its line was tried
                continue
            start = text.rfind("\n", 0, found.start()) + 1
            end = text.find("\n", found.start())
            end = len(text) if end < 0 else end
            match = self.pattern.search(text, start, end)
            if match is not None:
                yield match


class _Finds(Protocol):
    def finditer(self, text: str, /) -> Iterator[re.Match[str]]: ...


@dataclass
class WordLines:
    """The lines of one file that hold a word: their numbers (from 1) and their texts,
    joined by newlines in the same order (one text, so that a pattern runs over all of
    them at once)."""

    numbers: list[int]
    text: str

    def lines(self) -> list[str]:
        return self.text.split("\n")


class LinesOf(Protocol):
    """What :func:`word_lines` answers for one tree: ``lines(word)``, or within ``paths``."""

    def __call__(self, word: str, paths: Sequence[str] | None = None
                 ) -> Mapping[str, WordLines]: ...


def word_lines(root: Path, word: str, paths: Sequence[str] | None = None, *,
               timeout: float = 60.0) -> dict[str, WordLines]:
    """Each line that holds ``word`` as a whole word (a letter, digit or ``_`` next to it
    does not count), per path, as ``git grep -n -w -F`` finds them in the working tree:
    tracked files and untracked ones that are not ignored, binary files skipped.  A binary
    file is one with a NUL byte in its first 8,000, as :mod:`~genesis_git.search.grep` and
    the index see it: a text file that ``.gitattributes`` calls ``binary`` (git only says it
    matches) is read here.  Empty when git fails (the caller shows no match rather than an
    error).

    With ``paths``, only those files are read (each taken literally: ``[id].py`` is a
    name, not a pattern).

    The exact search (:mod:`~genesis_git.search.exact`) asks it for a name that the index
    keeps no token of: a stopword or a single letter (``has``, ``S``, ``a()``)."""
    only = ["--", *(f":(literal){p}" for p in paths)] if paths is not None else []
    res = run_git(["-c", "grep.column=false", "grep", "-n", "-z", "-w", "-F",
                   "--untracked", "--no-color", "-e", word, *only], cwd=root, check=False,
                  timeout=timeout)
    if res.returncode != 0:  # 1: no match; anything else: git could not grep here
        return {}
    grouped: dict[bytes, tuple[list[int], list[bytes]]] = {}
    binary: list[bytes] = []
    for raw, number, text in grep_records(res.stdout):
        if number is None:
            binary.append(raw)
            continue
        numbers, texts = grouped.setdefault(raw, ([], []))
        numbers.append(int(number))
        texts.append(text)
    out = {raw.decode("utf-8", errors="surrogateescape"):
           WordLines(numbers, b"\n".join(texts).decode("utf-8", errors="replace"))
           for raw, (numbers, texts) in grouped.items()}
    for raw in binary:
        path = raw.decode("utf-8", errors="surrogateescape")
        found = _text_lines(root / path, word)
        if found is not None:
            out[path] = found
    return out


def _text_lines(full: Path, word: str) -> WordLines | None:
    """The lines of a file that git calls binary, read here when its content is text."""
    try:
        with open(full, "rb") as handle:
            data = handle.read(8000)
            if b"\0" in data:  # binary indeed: not read further
                return None
            data += handle.read()
    except OSError:
        return None
    found = file_matches(str(full), data.decode("utf-8", errors="replace"),
                         compile_pattern(word, regex=False, word=True))
    if not found:
        return None
    return WordLines([m.line for m in found], "\n".join(m.text for m in found))


def line_scores(idx: SessionIndex, lines: Mapping[str, WordLines], name: str
                ) -> tuple[np.ndarray, dict[int, bool]]:
    """How many of the ``lines`` (per path) fall in each row's chunk: the chunk that starts
    last at or before the line (a line above a file's first chunk counts for it).  In
    source code, a line that defines the name (:func:`line_definition`: ``S = …``;
    :func:`keyword_definition`, Python's in a Python file: ``def a``) counts
    :data:`DEFINING_LINE`, a tenth of it when indented (a function's
    local ``S = []``, not the module's ``S = SingletonRegistry()``): its chunk is among the
    candidates however many uses others hold (in prose, "the function f" is no definition).
    Also the rows with a line that defines it after a keyword (``def f``, ``class E``) or
    at the top level (``S = …``), each with whether that line is at the top level: what
    the chunker's symbols say of a name with a token."""
    score = np.zeros(idx.n_rows, dtype=np.float64)
    declared: dict[int, bool] = {}
    at_start = line_definition(name)
    where = {path: m for m, path in enumerate(idx.map.paths) if path in lines}
    if not where:
        return score, declared
    rows = np.flatnonzero(np.isin(idx.rows_map, np.fromiter(where.values(), dtype=np.int64)))
    by_map = idx.rows_map[rows]
    starts = idx.starts[idx.rows_chunk[rows]]
    order = np.lexsort((starts, by_map))
    rows, by_map, starts = rows[order], by_map[order], starts[order]
    bounds = np.searchsorted(by_map, np.arange(len(idx.map.paths) + 1))
    for path, m in where.items():
        lo, hi = int(bounds[m]), int(bounds[m + 1])
        found = lines[path]
        at = np.searchsorted(starts[lo:hi], np.asarray(found.numbers, dtype=np.int64),
                             side="right") - 1
        hit = rows[lo:hi][np.maximum(at, 0)]
        np.add.at(score, hit, 1.0)
        if not is_code(path):  # prose and data: "the function f", a = in a stylesheet
            continue
        texts = found.lines()
        after_keyword = keyword_definition(name, is_python(path))
        for i in defining_lines(found.text, at_start, after_keyword, numbers=found.numbers):
            top = not indented(texts[i])
            r = int(hit[i])
            score[r] += (DEFINING_LINE if top else DEFINING_LINE / 10) - 1.0
            if top or after_keyword.search(texts[i]):
                declared[r] = declared.get(r, False) or top
    return score, declared


def defining_lines(text: str, *patterns: _Finds, numbers: Sequence[int] | None = None
                   ) -> list[int]:
    """The indexes of the lines of ``text`` that a pattern matches (on the line of the
    match's end: the name, or its ``=``), each once; a pass of each over all of them.
    ``numbers``: the line number in its file of each line of ``text`` (the lines git gives
    of a word); a match over lines that are no neighbours there (``def`` ending one, the
    name starting another far below it) is none."""
    out: dict[int, None] = {}
    for half in patterns:
        for match in half.finditer(text):
            last = text.count("\n", 0, match.end() - 1)  # the name's line (or its =)
            first = last - match.group().count("\n")
            if numbers is None or numbers[last] - numbers[first] == last - first:
                out[last] = None
    return sorted(out)


def name_line(lines: Sequence[str], name: str) -> int | None:
    """The index of the line of ``lines`` that defines ``name`` (:func:`line_definition`,
    :func:`keyword_definition`), else of the first that holds it as a whole word, as
    written; ``None`` when no line does.  What a result of the name shows of its chunk:
    ``Matrix = MutableDenseMatrix``, not ``MutableMatrix = …`` above it."""
    at_start, after_keyword = line_definition(name), keyword_definition(name)
    whole = whole_word(name)
    first: int | None = None
    for i, line in enumerate(lines):
        if name not in line:
            continue
        if at_start.search(line) or after_keyword.search(line):
            return i
        if first is None and whole.search(line):
            first = i
    return first


@lru_cache(maxsize=256)
def whole_word(name: str) -> re.Pattern[str]:
    """``name`` as written, with no letter, digit, ``_`` or ``$`` next to it."""
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


def indented(line: str) -> bool:
    return line[:1] in (" ", "\t")

