"""What an issue's text says beyond its words: tracebacks, module names, code, a bug report.

A pasted issue names code more precisely than its prose does:

* a Python traceback names files, lines and functions
  (``File "/usr/lib/python3/site-packages/shop/core.py", line 12, in total``);
* a dotted name names a module (``shop.core.total``, ``from shop.core import
  Order``), which a file of the tree may be;
* code spans and blocks (```` `total()` ````, a fenced block, ``>>>``
  prompts) name identifiers as code, where the same word in prose is only a
  word (``add``, ``compute``);
* code, a traceback or a prompt make the text a *bug report*: what is to
  change is then source code far more often than documentation, tests or
  configuration.

:func:`read_issue` reads all of it once; the signals in
:mod:`genesis_git.impact.anchors` use it.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field

from genesis_git.text.tokens import tokenize, without_chrome

_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([A-Za-z_<][\w<>.]*))?')
_HEAD = re.compile(r"Traceback \(most recent call last\)")  # where a traceback starts
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){1,8})")
_IMPORT = re.compile(r"^\s*(?:>>>\s*)?(?:from\s+([\w.]+)\s+import\s+([\w, ()*]+)|import\s+([\w., ]+))",
                     re.MULTILINE)
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
# a fenced block in a markup or data language (```rst, ```html, ```yaml): a page or a
# settings file the user fed the project, not code of it
_DATA_FENCE = re.compile(r"```[ \t]*(?:rst|rest|restructuredtext|text|txt|html|xml|markdown|md|"
                         r"latex|tex|ini|toml|ya?ml|json|csv|jinja2?)[ \t]*\n(.*?)(?:```|\Z)",
                         re.DOTALL | re.IGNORECASE)
_SPAN = re.compile(r"`([^`\n]{1,200})`")
_PROMPT = re.compile(r"^\s*(?:>>>|In \[\d+\]:|\$ python)", re.MULTILINE)
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# the line that says what failed: ``AttributeError: 'Zero' object has no attribute 'cols'``
_ERROR_LINE = re.compile(r"^[ \t>]*(?:E[ \t]{2,})?([\w.]+(?:Error|Exception|Warning)(?::[^\n]*)?)[ \t]*$",
                         re.MULTILINE)  # (pytest writes ``E   KeyError: 'sku'``)
# the variable an interpreter's error names: ``UnboundLocalError: local variable 'noqa'
# referenced before assignment`` (3.11: ``cannot access local variable 'noqa' where…``),
# ``NameError: name 'noqa' is not defined``
_VARIABLE = re.compile(r"\b(?:local|free) variable '([A-Za-z_]\w*)'"
                       r"|\bname '([A-Za-z_]\w*)' is not defined")
# looser, for the bug-report mark only: a line that begins with an exception's class, or
# a traceback's header
_ERROR = re.compile(r"^\s*(?:[\w.]+(?:Error|Exception|Warning)|Traceback \(most recent call last\))",
                    re.MULTILINE)


@dataclass
class Frame:
    path: str  # as written in the traceback
    line: int
    function: str | None
    trace: int = 0  # the tracebacks of the text that start before it (one traceback: 0 or 1)


@dataclass
class IssueText:
    """What :func:`read_issue` found in a requirement."""

    frames: list[Frame] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)  # dotted names: shop.core, shop.core.total
    code_tokens: set[str] = field(default_factory=set)  # whole-identifier tokens written as code
    variables: list[str] = field(default_factory=list)  # the names an UnboundLocalError… quotes
    bug_report: bool = False  # a traceback, an error line, code or an interpreter prompt

    @property
    def functions(self) -> list[str]:
        """The functions a traceback names (its frames, innermost last), without ``<module>``."""
        seen: dict[str, None] = {}
        for f in self.frames:
            if f.function and not f.function.startswith("<"):
                seen.setdefault(f.function.rsplit(".", 1)[-1], None)
        return list(seen)


def error_lines(text: str) -> list[str]:
    """The lines of ``text`` that say what failed: an exception's class, and its message
    after a colon (``KeyError: 'sku'``, ``shop.errors.PriceError``).  A line of prose that
    merely begins with one (``ValueError is raised when…``) is not one."""
    return _ERROR_LINE.findall(text)


def term_counts(text: str) -> Counter[str]:
    """The tokens of ``text`` and how often it says each, where a word of a fenced block in
    a markup or data language (```rst, ```html, ```yaml) counts once however often the
    block repeats it: the page or settings file that shows the bug says ``td``, ``width``
    or ``samp`` again and again, which would outweigh the title's words."""
    counts = Counter(tokenize(_DATA_FENCE.sub(" ", text)))
    for m in _DATA_FENCE.finditer(text):
        counts.update(set(tokenize(m.group(1))))
    return counts


def _code_parts(text: str) -> list[str]:
    """The code of ``text``: fenced blocks, inline spans and interpreter lines."""
    parts = [m.group(1) for m in _FENCE.finditer(text)]
    rest = _FENCE.sub(" ", text)
    parts += [m.group(1) for m in _SPAN.finditer(rest)]
    parts += [line for line in rest.splitlines() if _PROMPT.match(line)]
    return parts


def read_issue(text: str) -> IssueText:
    """Tracebacks, module names, code tokens and the bug-report mark of ``text``."""
    out = IssueText()
    heads = [m.start() for m in _HEAD.finditer(text)]
    for m in _FRAME.finditer(text):
        path = re.sub(r"[\\/]+", "/", m.group(1))
        out.frames.append(Frame(path, int(m.group(2)), m.group(3),
                                bisect.bisect_left(heads, m.start())))
    modules: dict[str, None] = {}
    for m in _IMPORT.finditer(text):
        if m.group(1):
            modules.setdefault(m.group(1), None)
            for name in re.findall(r"[A-Za-z_]\w*", m.group(2)):
                modules.setdefault(f"{m.group(1)}.{name}", None)
        else:
            for name in m.group(3).split(","):
                name = name.strip().split(" ")[0]
                if name:
                    modules.setdefault(name, None)
    frameless = _FRAME.sub(" ", text)
    for m in _DOTTED.finditer(frameless):
        name = m.group(1)
        if not re.search(r"\.(?:py|pyi|txt|md|rst|toml|cfg|json|ya?ml|html|js|ts)$", name):
            modules.setdefault(name, None)
    out.modules = list(modules)
    cleaned = without_chrome(text)
    code = _code_parts(cleaned)
    tokens: set[str] = set()
    for part in code:
        for word in _NAME.findall(part):
            toks = tokenize(word)
            if toks:
                tokens.add(toks[0])
    for m in _CALL.finditer(cleaned):
        toks = tokenize(m.group(1))
        if toks:
            tokens.add(toks[0])
    for function in out.functions:
        toks = tokenize(function)
        if toks:
            tokens.add(toks[0])
    out.variables = list(dict.fromkeys(a or b for a, b in _VARIABLE.findall(text)))
    for name in out.variables:
        toks = tokenize(name)
        if toks:
            tokens.add(toks[0])
    out.code_tokens = tokens
    out.bug_report = bool(out.frames or _ERROR.search(text) or _PROMPT.search(text)
                          or _FENCE.search(text))
    return out


def frame_paths(frames: list[Frame], paths: list[str]) -> dict[str, float]:
    """Files of ``paths`` that the traceback's frames name, by the longest matching suffix
    (an installed ``site-packages/shop/core.py`` is ``src/shop/core.py`` of the tree).

    Each traceback is read from the error outwards, and the k-th file of the tree it
    meets (k = 1, 2, …) weighs ``1 / k`` (at least 0.1), as BRTracer (Wong et al., 2014)
    weighs a stack trace's frames: the fix is most often where the error was raised, and
    the files further out are its callers (a test, the user's code, a dispatcher that
    calls back).  A file of several tracebacks keeps its best weight; a name that fits
    several files of the tree (``__init__.py``) is shared among them."""
    by_name: dict[str, list[str]] = {}
    for p in paths:
        by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    traces: dict[int, list[list[str]]] = {}
    for f in frames:
        best = _frame_files(f, by_name)
        if best:
            traces.setdefault(f.trace, []).append(best)
    out: dict[str, float] = {}
    for found in traces.values():
        met: dict[str, int] = {}
        for best in reversed(found):  # innermost first
            for p in best:
                k = met.setdefault(p, len(met) + 1)
                out[p] = max(out.get(p, 0.0), max(1.0 / k, 0.1) / len(best))
    return out


def _frame_files(f: Frame, by_name: dict[str, list[str]]) -> list[str]:
    """The files of the tree a frame's path ends with (the longest suffix); none when the
    path is only a name that more than three files have."""
    parts = [x for x in f.path.split("/") if x and x != "."]
    if not parts:
        return []
    best: list[str] = []
    depth = 0
    for p in by_name.get(parts[-1], []):
        pp = p.split("/")
        k = 0
        while k < min(len(pp), len(parts)) and pp[-1 - k] == parts[-1 - k]:
            k += 1
        if k > depth:
            best, depth = [p], k
        elif k == depth:
            best.append(p)
    return [] if depth == 1 and len(best) > 3 else best


def module_paths(modules: list[str], paths: set[str]) -> dict[str, float]:
    """Files that dotted names of the text are: ``shop.core`` -> ``shop/core.py`` (or its
    ``__init__.py``, or under ``src/``); ``shop.core.total`` names ``shop/core.py`` too, a
    little less.  The deepest module a name reaches wins."""
    out: dict[str, float] = {}
    for name in modules:
        parts = name.split(".")
        for cut in range(len(parts), 1, -1):  # a package root alone (shop) says little
            stem = "/".join(parts[:cut])
            found = [c for c in (f"{stem}.py", f"{stem}/__init__.py", f"src/{stem}.py",
                                 f"src/{stem}/__init__.py", f"lib/{stem}.py") if c in paths]
            if found:
                weight = 1.0 if cut == len(parts) else 0.8
                for p in found:
                    out[p] = max(out.get(p, 0.0), weight)
                break
    return out
