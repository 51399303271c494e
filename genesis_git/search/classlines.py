"""The lines a class walk reads, kept per file version, so that git reads only what changed.

A class walk (:mod:`~genesis_git.search.inherit`) reads the class statements of the
working tree's code and the module-level aliases of the names it meets, with ``git
grep``: on a tree like SymPy's about 0.15 s, paid again by every command that asks
``Matrix.det``.  The same lines, for every name at once (a line that holds ``class``
and a blank or tab, or that starts with a name that is not in lower case followed by
``=`` or an annotation), are kept in the store for each file of the session
(``<store>/search/<session>.classes``) with the blob it had: the next walk reads git
only for the files whose blob changed since, in one ``git grep -P``.  A git without
Perl-compatible patterns (``-P``) keeps nothing, and the walk reads the tree as before.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

from genesis_git.git.greplines import grep_records
from genesis_git.git.repo import run_git
from genesis_git.index.chunk import is_code
from genesis_git.index.classify import is_test_path
from genesis_git.kernel.gitrun import GitError
from genesis_git.search.inherit import Lineage
from genesis_git.store.connect import search_base_path
from genesis_git.store.sessionmap import path_blobs

FORMAT = 1
GREP_SECONDS = 30.0
NAMED_FILES = 500  # more files than this to read again: git reads the whole tree
# a class statement's line (``class`` and a blank: what the walk's fixed strings find), and
# a line that may be a module-level alias of a name that is not in lower case
PATTERNS = (r"class[ \t]", r"^_*[^\s_a-z0-9#][^\s:=]*[ \t]*(?::[^=\n]*)?=")

Line = tuple[str, int, str]  # path, line number, text


def session_lineage(conn: sqlite3.Connection, root: Path, session_id: str) -> Lineage:
    """The class ancestry of session ``session_id``'s tree, its walk reading the lines
    :func:`class_lines` keeps beside the session's search base for its files of code that
    are no tests (a store in memory keeps nothing: the walk asks git)."""
    def lines() -> list[Line] | None:
        base = search_base_path(conn, session_id)
        if base is None:
            return None
        files = {p: blob for p, blob in path_blobs(conn, session_id)
                 if is_code(p) and not is_test_path(p)}
        return class_lines(root, files, base.with_suffix(".classes"))
    return Lineage(root, conn, lines)


def class_lines(root: Path, files: Mapping[str, str], kept: Path) -> list[Line] | None:
    """``(path, number, line)`` of every line of ``files`` (path → its blob) that
    :data:`PATTERNS` match, in the order of the paths (git's) and their lines: those of the
    blobs ``kept`` holds from there, the others read by one ``git grep`` and kept; ``None``
    when git cannot give them."""
    held = _load(kept)
    missing = sorted(p for p, blob in files.items() if held.get(p, ("",))[0] != blob)
    if missing:
        found = _grep(root, missing if len(missing) <= NAMED_FILES else None)
        if found is None:
            return None
        read: dict[str, list[tuple[int, str]]] = {p: [] for p in missing}
        for path, number, text in found:
            if path in read:
                read[path].append((number, text))
        held = {p: v for p, v in held.items() if p in files}
        held.update({p: (files[p], lines) for p, lines in read.items()})
        _save(kept, held)
    return [(p, n, text) for p in sorted(files, key=_git_order)
            for n, text in held[p][1]]


def _git_order(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def _grep(root: Path, paths: Sequence[str] | None) -> list[Line] | None:
    args = ["-c", "grep.column=false", "grep", "-n", "-z", "-I", "-P", "--untracked",
            "--no-color", *(a for p in PATTERNS for a in ("-e", p))]
    if paths is not None:
        args += ["--", *(f":(literal){p}" for p in paths)]
    try:
        res = run_git(args, cwd=root, check=False, timeout=GREP_SECONDS)
    except GitError:  # git could not start, or gave no answer in time
        return None
    if res.returncode not in (0, 1):  # 1: nothing found; else no -P here, or no answer
        return None
    return [(raw.decode("utf-8", errors="surrogateescape"), int(number),
             text.decode("utf-8", errors="replace"))
            for raw, number, text in grep_records(res.stdout) if number is not None]


def _load(kept: Path) -> dict[str, tuple[str, list[tuple[int, str]]]]:
    try:
        data = json.loads(kept.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    try:
        return {str(p): (str(blob), [(int(n), str(t)) for n, t in lines])
                for p, (blob, lines) in data.get("files", {}).items()}
    except (AttributeError, TypeError, ValueError):  # written by hand, or by another tool
        return {}


def _save(kept: Path, held: Mapping[str, tuple[str, list[tuple[int, str]]]]) -> None:
    """Write what is kept beside, then in place of, the file (a reader sees one or the
    other); a store that cannot be written keeps nothing, which costs only time."""
    part = kept.with_name(f"{kept.name}.{os.urandom(6).hex()}.part")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(json.dumps({"format": FORMAT, "files": held}), encoding="ascii")
        os.replace(part, kept)
    except OSError:
        part.unlink(missing_ok=True)
