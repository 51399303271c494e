"""The evidence besides history: the tests of the changed modules, the references to the
definitions the change edited, and the docs that name them.

* **definitions** — the chunker's symbols (:func:`genesis_git.index.chunk.chunk_text`:
  functions, classes, methods) whose lines a hunk touched, on either side of the change;
  the tables and columns of DDL and ORM models (:func:`genesis_git.index.facts.tables_in_text`)
  and the keys of settings files on the changed lines;
* **references** — the files that name one of those definitions as a whole word
  (``git grep -w`` of the change's tree), stronger when the file imports the changed
  module (:func:`genesis_git.index.facts.py_import_specs`, resolved like impact's graph);
* **tests** — a test file named for a changed module (``test_order.py``, ``order_test.go``,
  ``order.spec.ts``, ``OrderTest.java``) that the change did not touch;
* **docs** — documentation (``.md``, ``.rst``, ``.txt``, ``.adoc``, ``docs/``) that names
  a changed public definition or setting.

Each source gives a file a probability-like weight (0..1) and its reasons.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from genesis_git.check.change import Change, texts
from genesis_git.git.repo import Repo
from genesis_git.impact.graph import module_index, resolve_py_imports
from genesis_git.impact.kinds import file_flags
from genesis_git.index.chunk import PROSE_EXTENSIONS, chunk_text, language_of
from genesis_git.index.classify import is_test_path
from genesis_git.index.facts import py_import_specs, tables_in_text

DOC_EXT = tuple(sorted(PROSE_EXTENSIONS))
SETTINGS_EXT = (".toml", ".ini", ".cfg", ".yaml", ".yml", ".env", ".properties")
_SETTING = re.compile(r"^[ \t+-]*([A-Za-z_][\w.-]{3,})[ \t]*[=:]", re.MULTILINE)
_STOP_NAMES = {"__init__", "main", "setup", "test", "tests", "run", "get", "set", "init",
               "self", "name", "value", "data", "type", "args", "kwargs", "config", "update",
               "create", "delete", "close", "open", "read", "write", "call", "load", "save"}
# the files a reference or a doc can be in: code, docs, templates, settings (never data)
GREP_PATHS = tuple(f"*.{e}" for e in (
    "py", "pyi", "pyx", "js", "mjs", "cjs", "ts", "tsx", "jsx", "vue", "svelte", "go", "rs",
    "java", "kt", "kts", "scala", "rb", "php", "cs", "c", "h", "cc", "cpp", "hpp", "m", "swift",
    "sql", "sh", "md", "rst", "txt", "adoc", "markdown", "toml", "yaml", "yml", "ini", "cfg",
    "html", "htm", "jinja", "j2", "tmpl", "proto", "graphql", "example"))
MAX_NAMES = 40
MIN_NAME = 5  # a shorter name (``sqrt``, ``ring``) is inside too many words to be evidence
MAX_SCOPE = 2000  # files read match by match; more: the whole tree is scanned
MAX_HITS = 25  # a name found in more files than this is too common to be evidence
MAX_READ = 60  # files read to see whether they import the changed module

Found = dict[str, tuple[float, list[str]]]  # path -> (weight, reasons)


@dataclass
class Definitions:
    names: dict[str, str] = field(default_factory=dict)  # name -> the path that defines it
    public: set[str] = field(default_factory=set)  # names a user of the module may use
    signature: set[str] = field(default_factory=set)  # names whose defining line changed
    anchors: set[str] = field(default_factory=set)  # tables and setting keys: used by name


def is_doc(path: str) -> bool:
    low = path.lower()
    return low.endswith(DOC_EXT) or low.startswith(("docs/", "doc/")) and language_of(low) in (
        "markdown", "rst", "text")


def _touches(lines: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a <= end and start <= b for a, b in lines)


def definitions(repo: Repo, change: Change) -> Definitions:
    """The names the change defined, edited or removed (see the module's doc)."""
    out = Definitions()
    wanted = sorted(p for p in change.files
                    if not is_test_path(p) and "changelog" not in file_flags(p))
    after = texts(repo, change, [p for p in wanted if change.files[p] != "D"])
    before = texts(repo, change, [p for p in wanted if change.files[p] != "A"], new=False)
    for path in wanted:
        sides = [(after.get(path, ""), change.new_lines.get(path, [])),
                 (before.get(path, ""), change.old_lines.get(path, []))]
        for text, lines in sides:
            if not lines or not text:
                continue
            rows = text.splitlines()
            if path.lower().endswith(SETTINGS_EXT):
                for m in _SETTING.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    if _touches(lines, line, line):
                        key = m.group(1).split(".")[-1]
                        _add(out, key, path, True)
                        if key in out.names:
                            out.anchors.add(key)
                continue
            for chunk in chunk_text(path, text):
                if chunk.symbol and _touches(lines, chunk.start_line, chunk.end_line):
                    name = chunk.symbol.split(".")[-1]
                    _add(out, name, path, not name.startswith("_"))
                    head = _line_of(rows, name, chunk.start_line, chunk.end_line)
                    if head and _touches(lines, head, head) and name in out.names:
                        out.signature.add(name)
            for table, first, last, cols, _kind in tables_in_text(text, 1):
                if _touches(lines, first, last):
                    _add(out, table, path, True)
                    if table in out.names:
                        out.anchors.add(table)
                    for col in cols:
                        col_line = _line_of(rows, col, first, last)
                        if col_line and _touches(lines, col_line, col_line):
                            _add(out, col, path, True)
    return out


def _line_of(rows: list[str], word: str, first: int, last: int) -> int | None:
    """The first line from ``first`` to ``last`` that names ``word``."""
    pattern = re.compile(rf"\b{re.escape(word)}\b")
    for i in range(max(first, 1), min(last, len(rows)) + 1):
        if word in rows[i - 1] and pattern.search(rows[i - 1]):
            return i
    return None


def _add(out: Definitions, name: str, path: str, public: bool) -> None:
    if len(name) < MIN_NAME or name.lower() in _STOP_NAMES or (name.startswith("__")
                                                          and name.endswith("__")):
        return
    if len(out.names) >= MAX_NAMES and name not in out.names:
        return
    out.names.setdefault(name, path)
    if public:
        out.public.add(name)


def _grep(repo: Repo, change: Change, words: list[str], paths: list[str] | tuple[str, ...], *,
          only_files: bool = False) -> list[tuple[str, str]]:
    """``(path, word)`` for every whole-word match of ``words`` in ``paths`` of the change's
    "after" side (with ``only_files``, ``(path, "")`` once per file)."""
    literal = paths is not GREP_PATHS  # the globs match at any depth, as git's default does
    args = ["-c", "core.quotePath=false", *(["--literal-pathspecs"] if literal else []),
            "grep", "-I", "-w", "-F", "-z", "--no-color", "-l" if only_files else "-o"]
    if change.tip:
        where = [change.tip]
    elif change.label == "staged":
        where, args = [], args + ["--cached"]
    else:
        where = []
    for word in words:
        args += ["-e", word]
    raw = repo.git(*args, *where, "--", *paths, check=False)
    prefix = f"{change.tip}:" if change.tip else ""
    out: list[tuple[str, str]] = []
    # -l -z: each path ends with NUL; -o -z: "path NUL match" lines
    rows = ([[p] for p in raw.split(b"\0")] if only_files else
            [line.split(b"\0") for line in raw.split(b"\n")])
    for parts in rows:
        if not parts[0] or (len(parts) < 2 and not only_files):
            continue
        path = parts[0].decode("utf-8", "surrogateescape")
        if prefix and path.startswith(prefix):
            path = path[len(prefix):]
        out.append((path, "" if only_files else parts[-1].decode("utf-8", "replace")))
    return out


def grep_names(repo: Repo, change: Change, defs: Definitions, tree: set[str]
               ) -> dict[str, set[str]]:
    """Which files of the change's tree name each of ``names`` as a whole word.

    Only the files that can refer to the change are read match by match: those that name a
    changed module (its file name without the extension, e.g. ``pricing``), a changed table
    or setting key, and the docs.
    A whole-tree scan for every match of a common name (``sqrt`` in a computer algebra
    system) would cost seconds; a scan that stops at each file's first mention is cheap.
    """
    names = sorted(defs.names)
    if not names:
        return {}
    stems = sorted({_stem(p) for p in change.files if len(_stem(p)) >= 4 and not is_doc(p)}
                   | defs.anchors)
    near: set[str] = set()
    if stems:
        near = {p for p, _ in _grep(repo, change, stems, GREP_PATHS, only_files=True)}
    docs = sorted(p for p in tree if is_doc(p) and p.lower().endswith(DOC_EXT))
    scope = sorted(near | set(docs))
    found: dict[str, set[str]] = defaultdict(set)
    if not scope:
        return found
    if len(scope) > MAX_SCOPE:
        pairs = _grep(repo, change, names, GREP_PATHS)
    else:
        pairs = _grep(repo, change, names, scope)
    for path, word in pairs:
        found[word].add(path)
    return found


def references(repo: Repo, change: Change, defs: Definitions, hits: dict[str, set[str]],
               tree: set[str]) -> tuple[Found, Found]:
    """(references, docs): the files outside the change that name a changed definition."""
    refs: dict[str, list[str]] = defaultdict(list)
    docs: dict[str, list[str]] = defaultdict(list)
    for name, paths in sorted(hits.items()):
        if name not in defs.names:
            continue
        outside = sorted(p for p in paths if p not in change.files and p in tree)
        if len(outside) > MAX_HITS:
            continue
        for p in outside:
            if is_doc(p):
                if name in defs.public and "changelog" not in file_flags(p):
                    docs[p].append(name)
            elif not is_test_path(p):
                refs[p].append(name)
    imports = _importers(repo, change, sorted(refs, key=lambda p: (-len(refs[p]), p))[:MAX_READ],
                         tree)
    out_refs: Found = {}
    for p, names in refs.items():
        via = imports.get(p)
        signed = [n for n in names if n in defs.signature]
        weight = (0.3 if via else 0.12) + (0.2 if signed else 0.0) + 0.08 * (len(names) - 1)
        where = defs.names[names[0]]
        reason = (f"imports {via} and uses {', '.join(names[:4])}" if via else
                  f"names {', '.join(names[:4])} (defined in {where})")
        if signed:
            reason += f"; the definition of {signed[0]} changed"
        weight = min(0.6, weight)
        out_refs[p] = (weight, [reason])
    out_docs: Found = {}
    for p, names in docs.items():
        weight = min(0.6, 0.3 + 0.1 * (len(names) - 1))
        out_docs[p] = (weight, [f"names {', '.join(names[:4])}, which the change edited"])
    return out_refs, out_docs


def _importers(repo: Repo, change: Change, paths: list[str], tree: set[str]) -> dict[str, str]:
    """Of ``paths``, those whose Python imports resolve to a changed file: path -> that file."""
    changed = {p for p in change.files if p.endswith((".py", ".pyi"))}
    if not changed:
        return {}
    index = module_index(tree)
    out: dict[str, str] = {}
    read = texts(repo, change, [p for p in paths if p.endswith((".py", ".pyi"))])
    for path, text in sorted(read.items()):
        targets = resolve_py_imports(path, py_import_specs(text), index, tree)
        hit = sorted(targets & changed)
        if hit:
            out[path] = hit[0]
    return out


def _stem(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    stem = base.split(".", 1)[0]
    return "" if stem == "__init__" else stem


def tests(change: Change, tree: set[str]) -> Found:
    """The tests named for a changed module that the change did not touch."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for p in tree:
        if is_test_path(p):
            base = p.rsplit("/", 1)[-1].split(".", 1)[0].lower()
            for key in {re.sub(r"^tests?_|(_tests?|_spec|tests?)$", "", base), base}:
                if key:
                    by_stem[key].append(p)
    out: Found = {}
    for path, status in sorted(change.files.items()):
        if status == "D" or is_test_path(path) or language_of(path) != "python" and not re.search(
                r"\.(js|ts|tsx|jsx|go|rs|java|kt|rb|php|cs|c|cc|cpp|h|swift|scala)$", path):
            continue
        stem = _stem(path).lower()
        if len(stem) < 3:
            continue
        for test in sorted(by_stem.get(stem, [])):
            if test in change.files:
                continue
            weight, reasons = out.get(test, (0.0, []))
            out[test] = (max(weight, 0.4), reasons + [f"tests {path}, which the change edited"])
    return out
