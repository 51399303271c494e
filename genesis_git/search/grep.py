"""Exact and regular-expression search over the session's files: ``git grep``, ranked.

``genesis search --fixed-strings`` / ``--regex`` and the MCP tool ``search`` with
``match``: every line of the session's files that holds the pattern, read from
the working tree as it is now (the session is refreshed first, so an edit saved
a second ago is there, a deleted file is not, and an untracked file the session
indexes is searched).  Like ``git grep`` it finds every occurrence; unlike it,
files come ranked: a file that defines the pattern (a ``def``, ``class`` or
``CREATE TABLE`` line that holds it) first, then files with more matches, then
paths; lines keep their order within a file.

A binary file (a NUL byte in its first 8,000 bytes) is skipped, as ``git grep``
skips it.  Regular expressions are Python's (:mod:`re`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genesis_git.index.classify import any_glob
from genesis_git.kernel.errors import UsageError
from genesis_git.store import sessionmap

MAX_LINE = 400  # characters of a matching line kept in a result
_DEFINES = re.compile(  # keywords as code writes them; SQL's in any case
    r"^\s*(?:export\s+)?(?:(?:async\s+)?def|class|(?:async\s+)?function|interface|type|struct|"
    r"enum|trait|fn|func|const|let|var|(?i:CREATE\s+(?:TEMP(?:ORARY)?\s+)?(?:TABLE|VIEW|INDEX)"
    r"(?:\s+IF\s+NOT\s+EXISTS)?))\b")
_FIRST_WORDS = frozenset({"export", "def", "async", "class", "function", "interface", "type",
                          "struct", "enum", "trait", "fn", "func", "const", "let", "var",
                          "create"})


def is_definition(line: str) -> bool:
    """A line that defines something: ``def``, ``class``, ``function``, ``CREATE TABLE``, …
    (a sentence that begins "Class names…" or "Type checking…" does not)."""
    head = line.lstrip()[:10].split("(", 1)[0].split(None, 1)
    return (bool(head) and (head[0] in _FIRST_WORDS or head[0].lower() == "create")
            and bool(_DEFINES.match(line)))


@dataclass
class GrepMatch:
    path: str
    line: int
    column: int  # 1-based, in characters
    text: str
    definition: bool

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "text": self.text,
                "definition": self.definition}


@dataclass
class GrepResult:
    pattern: str
    regex: bool
    ignore_case: bool
    session_id: str
    files_searched: int = 0
    matches: list[GrepMatch] = field(default_factory=list)
    files: list[tuple[str, float, int]] = field(default_factory=list)  # path, score, matches
    truncated_files: int = 0  # files left out by ``k``


def compile_pattern(pattern: str, *, regex: bool, ignore_case: bool = False,
                    word: bool = False) -> re.Pattern[str]:
    """The pattern as Python compiles it; an empty or invalid one is a usage error."""
    if not pattern:
        raise UsageError("empty pattern", hint="say what to look for")
    body = pattern if regex else re.escape(pattern)
    if word and not regex and not ignore_case:  # the literal first: re looks for it fast
        body = rf"{body}(?<!\w{body})(?!\w)"  # a name that starts or ends with $ too
    elif word:
        body = rf"(?<!\w)(?:{body})(?!\w)"
    try:
        return re.compile(body, re.MULTILINE | (re.IGNORECASE if ignore_case else 0))
    except re.error as exc:
        raise UsageError(f"not a valid regular expression: {exc}",
                         hint="use fixed strings to match the text as written") from None


def _is_binary(data: bytes) -> bool:
    return b"\0" in data[:8000]


def file_matches(path: str, text: str, compiled: re.Pattern[str]) -> list[GrepMatch]:
    """Every line of ``text`` that ``compiled`` matches, at its first match (one search per
    matching line: a pattern that matches the empty string costs a search per line, not per
    character); as in ``git grep``, nothing after the final newline is a line."""
    out: list[GrepMatch] = []
    line_no = 1
    counted = 0
    pos = 0
    size = len(text)
    while pos <= size:
        m = compiled.search(text, pos)
        if m is None:
            break
        start = m.start()
        if start == size and (size == 0 or text.endswith("\n")):
            break
        line_no += text.count("\n", counted, start)
        counted = start
        begin = text.rfind("\n", 0, start) + 1
        end = text.find("\n", start)
        end = size if end < 0 else end
        line = text[begin:end].rstrip("\r")
        out.append(GrepMatch(path, line_no, start - begin + 1, line[:MAX_LINE],
                             is_definition(line)))
        pos = end + 1
    return out


def _score(path: str, found: list[GrepMatch], pattern: str) -> float:
    defined = sum(1 for m in found if m.definition)
    named = pattern.lower() in path.rsplit("/", 1)[-1].lower()
    return round(2.0 * min(defined, 3) + math.log1p(len(found)) + (0.5 if named else 0.0), 4)


def grep(conn: Any, root: Path, session_id: str, pattern: str, *, regex: bool = False,
         ignore_case: bool = False, word: bool = False, paths: tuple[str, ...] = (),
         k: int | None = None, only: set[str] | None = None) -> GrepResult:
    """Every line of the session's files that holds ``pattern``, the files ranked; with ``k``,
    only the ``k`` best files; with ``only``, only those of these paths (known to be the only
    ones that can match)."""
    compiled = compile_pattern(pattern, regex=regex, ignore_case=ignore_case, word=word)
    literal = None if (regex or ignore_case) else pattern.encode("utf-8", "surrogatepass")
    base = str(root)
    result = GrepResult(pattern, regex, ignore_case, session_id)
    per_file: list[tuple[float, str, list[GrepMatch]]] = []
    for path in sorted({p for p, _, _ in sessionmap.paths_and_blobs(conn, session_id)}):
        if paths and not any_glob(path, paths):
            continue
        if only is not None and path not in only:
            result.files_searched += 1  # known not to match without being read
            continue
        try:  # os.path and open, not pathlib: this loop runs once per file of the tree
            with open(os.path.join(base, path), "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # gone since the refresh
        result.files_searched += 1
        if literal is not None and literal not in data:
            continue  # UTF-8 bytes hold the pattern's bytes wherever the text holds it
        if _is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        found = file_matches(path, text, compiled)
        if found:
            per_file.append((_score(path, found, pattern), path, found))
    per_file.sort(key=lambda f: (-f[0], f[1]))
    if k is not None and len(per_file) > k:
        result.truncated_files = len(per_file) - k
        per_file = per_file[:k]
    for score, path, found in per_file:
        result.files.append((path, score, len(found)))
        result.matches.extend(found)
    return result
