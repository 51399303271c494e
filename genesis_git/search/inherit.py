"""A class's ancestors, read from the working tree: ``Matrix.det`` is ``MatrixBase.det``.

An agent writes a method as it sees it called: ``Flask.route``, ``Matrix.det``.  The
method is often defined by a class the named one derives from (``Scaffold.route``), or
the name is an alias (``Matrix = MutableDenseMatrix``).  :func:`ancestors` follows
both, level by level, through the class statements of the working tree's code and
the module-level aliases of the names that have none (one ``git grep`` for the class
statements and the first name's aliases, one more per later level that has such
names; a name in lower case, Python's built-in classes and the bases of
:mod:`typing`, :mod:`abc` and :mod:`enum` are not looked for as aliases): tracked
files and untracked ones that are not ignored; tests and docs left out, whose
``MutableDenseMatrix = Matrix`` says the reverse.  :class:`Lineage` keeps what was read
for a caller, and tells a method that runs from a declaration for type checkers; given
every class statement and alias line of the tree at once (a session's, kept per file
version by :mod:`~genesis_git.search.classlines`), its walk asks git nothing.

The class statements understood: Python's ``class A(B, mod.C, Generic[T],
metaclass=M):``, ``class A extends B implements C {`` (JavaScript, TypeScript, Java,
PHP), Ruby's ``class A < B`` and ``class A : public B, C`` (C++, C#, Kotlin, Swift).
"""

from __future__ import annotations

import builtins
import re
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from genesis_git.git.greplines import grep_records
from genesis_git.git.repo import run_git
from genesis_git.index.chunk import is_code
from genesis_git.index.classify import is_test_path
from genesis_git.kernel.gitrun import GitError
from genesis_git.store.blobs import any_class_chunk

LEVELS = 8  # how many generations up
MAX_NAMES = 64  # names looked at in all
HEADER_LINES = 20  # a class statement over more lines than this is cut there
GREP_SECONDS = 30.0  # a tree git cannot read in this time has no ancestors to give

_NAME = re.compile(r"[A-Za-z_]\w*\Z")
_HEAD = re.compile(r"^[ \t]*(?:(?:export|default|public|private|protected|internal|abstract|"
                   r"final|sealed|open|data|static)[ \t]+)*class[ \t]+([A-Za-z_]\w*)")
_ALIAS = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*"
                    r"((?:[A-Za-z_][\w.]*[ \t]*=[ \t]*)*[A-Za-z_][\w.]*)[ \t]*(?:#.*)?$")
_FUNCTION = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]")  # what holds a nested function
_TYPE_CHECKING = re.compile(r"[ \t]*if[ \t]+(?:[A-Za-z_]\w*\.)?TYPE_CHECKING[ \t]*:")
_QUALIFIERS = {"public", "private", "protected", "virtual", "internal"}


def _capitalised(name: str) -> bool:
    """A class's name as classes are written (``Matrix``, ``_Base``); a name in lower case is
    looked for as a class (SymPy's ``cos``) but not as an alias, which would take one more
    ``git grep`` for every ``os.environ`` or ``sympy.simplify``."""
    return name.lstrip("_")[:1].isupper()


# a base that is no alias of the tree's: no git grep for it
_NOT_ALIASES = frozenset(n for n in dir(builtins) if n[:1].isupper() or n == "object") | {
    "ABC", "Enum", "Flag", "Generic", "IntEnum", "IntFlag", "NamedTuple", "Protocol",
    "StrEnum", "TypedDict"}


def bases(header: str) -> list[str]:
    """The names ``header`` (a class statement, from ``class`` on, over one or more lines)
    derives from, each without its module (``mod.C`` is ``C``), in order; ``[]`` for a
    class that names none."""
    m = _HEAD.match(header)
    if m is None:
        return []
    rest = header[m.end():].lstrip()
    if rest.startswith("["):  # class A[T](B): Python's type parameters
        rest = rest[_close(rest, "[", "]") + 1:].lstrip()
    if rest.startswith("("):
        inner = re.sub(r"#[^\n]*", "", rest[1:_close(rest, "(", ")")])  # comments out
        return _names(p for p in _split_top(inner) if "=" not in p)
    if rest.startswith("<") and not rest.startswith("<<"):  # Ruby
        return _names([rest[1:].split(";")[0]])
    if rest.startswith("<"):
        return []
    words = re.split(r"\b(extends|implements)\b", rest.split("{")[0])
    if len(words) > 1:
        return _names(p for w in words[2::2] for p in _split_top(w))
    if rest.startswith(":"):
        return _names(_split_top(rest[1:].split("{")[0]))
    return []


def alias_targets(line: str) -> tuple[str, list[str]] | None:
    """``(name, [the names it is made equal to])`` for a module-level alias (``Matrix =
    MutableMatrix = MutableDenseMatrix``, ``Row: TypeAlias = Record``); ``None`` for any
    other line (a call, a literal, an indented one)."""
    m = _ALIAS.match(line.rstrip("\r"))
    if m is None:
        return None
    return m.group(1), _names(m.group(2).split("="))


def ancestors(root: Path, name: str, tree: _Tree | None = None) -> list[str]:
    """The classes ``name`` derives from (or is an alias of), in Python's method resolution
    order where it has one (:func:`linearize`), else nearest first; read by a walk up the
    class statements and aliases of the working tree's code, at most :data:`LEVELS` levels
    and :data:`MAX_NAMES` names.  ``[]`` when git finds none.  ``tree``: what an earlier
    walk over the same files read, to read again only the aliases it did not look for."""
    if not _NAME.match(name):
        return []
    tree = tree if tree is not None else _Tree(root)
    parents: dict[str, list[str]] = {}
    seen = {name}
    nearest: list[str] = []
    level = [name]
    for _ in range(LEVELS):
        found = tree.parents(level)
        parents.update(found)
        level = []
        for child in sorted(found, key=lambda n: (n not in seen, n)):
            for parent in found[child]:
                if parent not in seen and len(seen) < MAX_NAMES:
                    seen.add(parent)
                    nearest.append(parent)
                    level.append(parent)
        if not level:
            break
    order = linearize(name, {k: [p for p in v if p in seen] for k, v in parents.items()})
    return order[1:] if order is not None else nearest


class Lineage:
    """The ancestry of a working tree's classes, kept by a caller while its files do not
    change (search with the session's index, ``genesis symbols`` with its definitions):
    the class statements are read once, by the first walk, for every name asked later."""

    def __init__(self, root: Path, conn: sqlite3.Connection | None = None,
                 lines: Callable[[], list[tuple[str, int, str]] | None] | None = None):
        self.root = root
        self.conn = conn
        self._ancestors: dict[str, list[str]] = {}
        self._files: dict[str, list[str]] = {}
        # the class statements, read by the first walk for all (from ``lines``, every
        # class statement and alias of the tree, when it gives them)
        self._tree = _Tree(root, lines)

    def ancestors(self, name: str) -> list[str]:
        """:func:`ancestors` of ``name``, read once.  A name in lower case that no class
        chunk of the store (``conn``) is called is a module or an object (``os.environ``,
        ``sympy.simplify``): no ``git grep`` for it."""
        if name not in self._ancestors:
            self._ancestors[name] = [] if (
                not _capitalised(name) and self.conn is not None
                and not any_class_chunk(self.conn, name)) else ancestors(
                    self.root, name, self._tree)
        return self._ancestors[name]

    def runs(self, path: str, start: int, end: int, name: str) -> bool:
        """Whether lines ``start``–``end`` of ``path`` define the method ``name`` when the
        code runs: a ``def`` of it that is neither one of the declarations under ``if
        TYPE_CHECKING:`` that type checkers read (SymPy's ``Expr`` declares ``evalf``
        there, ``EvalfMixin`` defines it) nor a function nested in another (``has`` in
        ``Expr.as_independent``).  ``True`` where no ``def`` of ``name`` is seen (another
        language, or a file that changed)."""
        lines, pattern = self._file(path), _def_of(name)
        seen = [i for i in range(max(0, start - 1), min(len(lines), max(start, end)))
                if pattern.match(lines[i])]
        outer = [_enclosing(lines, i) for i in seen]
        return not seen or any(
            _TYPE_CHECKING.match(o) is None and _FUNCTION.match(o) is None for o in outer)

    def nested(self, path: str, line: int, name: str) -> bool:
        """Whether the ``def`` of ``name`` at ``line`` of ``path`` (or below its decorators)
        is a function inside another, which the index may list as a method."""
        lines, pattern = self._file(path), _def_of(name)
        for i in range(max(0, line - 1), min(len(lines), line - 1 + HEADER_LINES)):
            if pattern.match(lines[i]):
                return _FUNCTION.match(_enclosing(lines, i)) is not None
        return False

    def _file(self, path: str) -> list[str]:
        if path not in self._files:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._files[path] = text.splitlines()
        return self._files[path]


def _def_of(name: str) -> re.Pattern[str]:
    return re.compile(rf"[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b")


def type_checking_only(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` (a definition or its decorator) lies in the body of an ``if
    TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): the nearest line above it that is
    indented less, comments and blank lines aside, is that ``if``."""
    return 0 <= index < len(lines) and _TYPE_CHECKING.match(_enclosing(lines, index)) is not None


def _enclosing(lines: list[str], index: int) -> str:
    """The nearest line above ``lines[index]`` that is indented less, comments and blank
    lines aside (``""`` at the top level)."""
    own = len(lines[index]) - len(lines[index].lstrip())
    for above in reversed(lines[:index]):
        stripped = above.strip()
        if stripped and not stripped.startswith("#") and len(above) - len(above.lstrip()) < own:
            return above
    return ""


def linearize(name: str, parents: dict[str, list[str]]) -> list[str] | None:
    """``name`` and its ancestors in the order Python looks a method up (the C3
    linearization of ``parents``); ``None`` when they have none (a cycle, or an order C3
    cannot keep)."""
    memo: dict[str, list[str] | None] = {}

    def walk(n: str, path: frozenset[str]) -> list[str] | None:
        if n in memo:
            return memo[n]
        if n in path:
            return None
        lines = [walk(p, path | {n}) for p in parents.get(n, [])]
        if any(x is None for x in lines):
            return None
        seqs = [list(x) for x in lines if x] + [list(parents.get(n, []))]
        out = [n]
        while any(seqs):
            seqs = [q for q in seqs if q]
            head = next((q[0] for q in seqs if not any(q[0] in r[1:] for r in seqs)), None)
            if head is None:
                memo[n] = None
                return None
            out.append(head)
            seqs = [q[1:] if q[0] == head else q for q in seqs]
        memo[n] = out
        return out

    return walk(name, frozenset())


class _Tree:
    """The class statements of the working tree's code, read by one ``git grep`` when first
    asked (``class`` is on a few thousand lines of a tree like SymPy's) together with the
    aliases of the names asked first, and the aliases of later names no class statement
    defines, read by one more per level that has such names."""

    def __init__(self, root: Path,
                 lines: Callable[[], list[tuple[str, int, str]] | None] | None = None):
        self.root = root
        self._classes: dict[str, list[tuple[str, int, str]]] | None = None
        self._aliases: dict[str, list[str]] = {}  # name -> what it is made equal to
        self._asked: set[str] = set()  # names whose aliases were looked for
        self._every = lines  # every class statement and alias line, or None: ask git
        self._all = False  # whether the aliases of every name were read

    def parents(self, names: list[str]) -> dict[str, list[str]]:
        """Each of ``names`` with the names its class statements (or, when it has none, its
        aliases) give, in the order of the files (git's) and their lines."""
        if self._classes is None:
            self._classes = {}
            every = self._every() if self._every is not None else None
            if every is not None:
                self._read(every, None)
                self._all = True
            else:
                self._lines(["class ", "class\t"], names)
        others = [n for n in names if n not in self._classes and n not in _NOT_ALIASES
                  and _capitalised(n)]
        if not self._all and [n for n in others if n not in self._asked]:
            self._lines([], [n for n in others if n not in self._asked])
        out: dict[str, list[str]] = {}
        for name in names:
            for path, number, line in self._classes.get(name, []):
                _add(out, name, bases(_statement(self.root / path, number, line)))
            if name in others:
                _add(out, name, self._aliases.get(name, []))
        return {k: v for k, v in out.items() if v}

    def _lines(self, strings: list[str], names: list[str]) -> None:
        """Read the class statements (when ``strings`` asks for them) and the aliases of
        ``names`` from one ``git grep``."""
        assert self._classes is not None
        wanted = [n for n in names if n not in _NOT_ALIASES and _capitalised(n)]
        self._asked.update(wanted)
        self._read(self._grep(strings + [f"{n}{form}" for n in wanted
                                         for form in (" =", "=", ":")]),
                   set(wanted), classes=bool(strings))

    def _read(self, lines: list[tuple[str, int, str]], wanted: set[str] | None, *,
              classes: bool = True) -> None:
        """Keep the class statements of ``lines`` (with ``classes``) and the aliases of the
        names ``wanted`` (``None``: of every name that may be one)."""
        assert self._classes is not None
        for path, number, line in lines:
            head = _HEAD.match(line) if classes else None
            alias = alias_targets(line)
            if head is not None:
                self._classes.setdefault(head.group(1), []).append((path, number, line))
            elif alias is not None and (alias[0] in wanted if wanted is not None else
                                        alias[0] not in _NOT_ALIASES and _capitalised(alias[0])):
                listed = self._aliases.setdefault(alias[0], [])
                listed += [t for t in alias[1] if t not in listed]

    def _grep(self, strings: list[str]) -> list[tuple[str, int, str]]:
        """``(path, line number, line)`` of the lines of code (not tests) that hold one of
        ``strings``, fixed strings that git finds fast; ``[]`` when git finds none."""
        try:
            res = run_git(["-c", "grep.column=false", "grep", "-n", "-z", "-I", "-F",
                           "--untracked", "--no-color", *(a for s in strings for a in ("-e", s))],
                          cwd=self.root, check=False, timeout=GREP_SECONDS)
        except GitError:  # git could not start, or gave no answer in time: no ancestors
            return []
        if res.returncode != 0:  # 1: nothing found; anything else: no answer here either
            return []
        out: list[tuple[str, int, str]] = []
        for raw, number, text in grep_records(res.stdout):
            path = raw.decode("utf-8", errors="surrogateescape")
            if number is not None and is_code(path) and not is_test_path(path):
                out.append((path, int(number), text.decode("utf-8", errors="replace")))
        return out


def _add(out: dict[str, list[str]], child: str, parents: list[str]) -> None:
    listed = out.setdefault(child, [])
    listed += [p for p in parents if p not in listed and p != child]


def _statement(path: Path, number: int, line: str) -> str:
    """The class statement that starts at ``line`` (line ``number`` of ``path``), with the
    lines that follow it while a bracket it opened is still open."""
    if _open(line) <= 0:
        return line
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()[number - 1:number - 1 + HEADER_LINES]
    except OSError:
        return line
    text = ""
    for piece in lines:
        text += piece + "\n"
        if _open(text) <= 0:
            break
    return text


def _open(text: str) -> int:
    return sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")


def _close(text: str, opening: str, closing: str) -> int:
    """Where the bracket that opens ``text`` closes (the end of ``text`` if it does not)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == opening) - (ch == closing)
        if depth == 0:
            return i
    return len(text)


def _split_top(text: str) -> list[str]:
    """``text`` cut at the commas outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _names(parts: Iterable[str]) -> list[str]:
    """The class name of each part (``mod.C`` → ``C``, ``Generic[T]`` → ``Generic``,
    ``public B`` → ``B``), without a part that names none."""
    out: list[str] = []
    for part in parts:
        words = [w for w in re.split(r"[ \t\n]+", part.split("[")[0].split("<")[0].strip())
                 if w and w not in _QUALIFIERS]
        name = words[-1].rsplit(".", 1)[-1].rsplit("::", 1)[-1] if words else ""
        if _NAME.match(name) and name not in out:
            out.append(name)
    return out
