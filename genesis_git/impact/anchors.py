"""Signals for issue text: tracebacks, symbol anchors, the source prior, bridges, feedback.

* ``traceback`` — files a traceback's frames or the text's dotted module names
  name (:mod:`genesis_git.impact.issue`), and the code that uses a variable the
  interpreter's error names (``local variable 'noqa' referenced before assignment``);
* symbol *anchors* — the query tokens that may stand for a symbol: those
  written as code (an identifier, a code span, a call, a frame's function),
  and plain words only when few files define them, so that ``add`` in "add a
  method" is not ``Poly.add`` while ``discriminant`` is ``Poly.discriminant``;
* the *prior* of a bug report — documentation (a changelog too), tests, examples
  and configuration weigh less than source code unless the text names them;
* the ``bridge`` — a test file that matches leads to the module it tests
  (``tests/test_core.py`` -> ``core.py``, among the modules it imports);
* ``feedback`` — pseudo-relevance feedback over the import graph: in a bug
  report, a file one import away from the best files, which also matches the
  text, moves up (the symptom shows where the text points, the cause is often
  one import further; a change description names what it changes, and there
  feedback cost recall@10 on the commit-message sets).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from genesis_git.impact.analyse import QueryInfo
from genesis_git.impact.corpus import Corpus
from genesis_git.impact.graph import Graph
from genesis_git.impact.issue import frame_paths, module_paths
from genesis_git.index.chunk import PROSE_EXTENSIONS
from genesis_git.index.classify import is_test_path
from genesis_git.text.tokens import tokenize

RARE_SHARE = 0.005  # a plain word is an anchor when at most this share of files define it
RARE_MIN = 5  # ... or at most this many
_DOC_DIRS = {"doc", "docs", "documentation", "examples", "example", "samples", "sample",
             "benchmarks", "bench", ".github"}
_PROSE = {e[1:] for e in PROSE_EXTENSIONS} | {"ipynb"}  # a notebook reads as a document
_CONFIG = {"toml", "yml", "yaml", "cfg", "ini", "json", "lock", "in"}
PRIOR = {"doc": 0.45, "test": 0.55, "config": 0.4}
FEEDBACK_SEEDS = 3  # the best files whose neighbours feedback looks at
NEVER = frozenset({".genesis.toml"})  # genesis's own settings are never a result


def never_a_result(path: str) -> bool:
    """genesis's own files are never what a requirement changes."""
    return path in NEVER


def file_kind(path: str, flags: Collection[str] = ()) -> str:
    """``doc``, ``test``, ``config`` or ``source``, by the path and the file's flags
    (:func:`~genesis_git.impact.kinds.file_flags`: a ``changelog`` is a document, also
    when its name has no extension, as Sphinx's ``CHANGES``)."""
    parts = path.lower().split("/")
    ext = parts[-1].rsplit(".", 1)[-1] if "." in parts[-1] else ""
    if is_test_path(path):
        return "test"
    if ext in _PROSE or "changelog" in flags or any(p in _DOC_DIRS for p in parts[:-1]):
        return "doc"
    if ext in _CONFIG or parts[-1].startswith("."):
        return "config"
    return "source"


def anchor_tokens(q: QueryInfo, graph: Graph, n_files: int) -> set[str]:
    """The query tokens that may stand for a symbol the text means (see the module)."""
    code = set(q.ident_tokens) | q.issue.code_tokens
    limit = max(RARE_MIN, int(RARE_SHARE * n_files))
    out: set[str] = set()
    for tok in q.weights:
        defs = graph.symbols.get(tok)
        if not defs or not q.names(tok):
            continue
        if tok in code or len({p for p, *_ in defs}) <= limit:
            out.add(tok)
    return out


MODULE_SHARE = 0.5  # a dotted name or an import weighs as a traceback's second file


def traceback_scores(q: QueryInfo, paths: list[str]) -> dict[str, float]:
    """Files a traceback's frames or the text's module names name (0..1).  A reproduction's
    imports and the names it prints (``from sympy.matrices import Matrix``,
    ``<class 'sympy.core.numbers.Zero'>``) name what the user called or saw, the outer end
    of what ran: they weigh as a caller's frame does, not as the frame that failed."""
    out = frame_paths(q.issue.frames, paths)
    for p, v in module_paths(q.issue.modules, set(paths)).items():
        out[p] = max(out.get(p, 0.0), MODULE_SHARE * v)
    return out


VARIABLE_FILES = 200  # a variable in more files than this tells none of them apart


def variable_scores(q: QueryInfo, corpus: Corpus, file_terms: Mapping[str, set[str]]
                    ) -> dict[str, tuple[float, str]]:
    """The Python files whose code (not a comment) uses a variable that the interpreter's
    error names (``local variable 'noqa' referenced before assignment``, ``name 'noqa' is
    not defined``): the error happened where the name is used, which the text's words
    alone rarely show, as a traceback's frame would (1 / the number of such files; a test
    only when no other file uses it: the report is of the library failing), each with the
    name."""
    out: dict[str, tuple[float, str]] = {}
    for name in q.issue.variables:
        toks = tokenize(name)
        if not toks:
            continue
        holding = sorted(p for p, terms in file_terms.items()
                         if toks[0] in terms and p.endswith((".py", ".pyi")))
        if not holding or len(holding) > VARIABLE_FILES:
            continue
        using = sorted(p for p, text in corpus.texts(holding).items() if in_code(name, text))
        using = [p for p in using if not is_test_path(p)] or using  # the library failed
        for p in using:
            if 1.0 / len(using) > out.get(p, (0.0, ""))[0]:
                out[p] = (1.0 / len(using), name)
    return out


def in_code(name: str, text: str) -> bool:
    """``name`` is a word of ``text`` somewhere before any ``#`` of its line (not in a
    comment).  ``str.find`` rather than a pattern: a pattern that starts with ``\\b`` is
    tried at every position of the text."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if ((at == 0 or not _word_char(text[at - 1]))
                and (end == len(text) or not _word_char(text[end]))
                and "#" not in text[text.rfind("\n", 0, at) + 1:at]):
            return True
        at = text.find(name, end)
    return False


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def prior_factor(path: str, q: QueryInfo, flags: Collection[str] = ()) -> float:
    """The multiplier of a file in a bug report: less for docs (a changelog among them), tests
    and configuration that the text does not name; 1.0 for source code and for any other
    text."""
    if not q.issue.bug_report:
        return 1.0
    kind = file_kind(path, flags)
    if kind == "source":
        return 1.0
    base = path.rsplit("/", 1)[-1]
    if any(path == h or path.endswith("/" + h) or base == h for h in q.file_hints):
        return 1.0
    return PRIOR[kind]


def bridge_scores(base: Mapping[str, float], graph: Graph, paths: set[str], top: int = 20
                  ) -> dict[str, tuple[float, str]]:
    """Modules that the best-scoring test files test: ``tests/test_core.py`` (or
    ``core_test.py``) leads to the ``core.py`` it imports, or failing that to the
    ``core.py`` nearest to it.  Each gets the test's score and its path."""
    tests = sorted(((s, p) for p, s in base.items() if s > 0 and is_test_path(p)),
                   key=lambda x: (-x[0], x[1]))[:top]
    by_name: dict[str, list[str]] = {}
    for p in paths:
        by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    out: dict[str, tuple[float, str]] = {}
    for s, t in tests:
        base_name = t.rsplit("/", 1)[-1]
        stem, _, ext = base_name.rpartition(".")
        name = stem.removeprefix("test_").removesuffix("_test").removesuffix("_tests")
        if not name or name == stem and not stem.startswith("test"):
            continue
        candidates = [p for p in by_name.get(f"{name}.{ext}", []) if not is_test_path(p)]
        if not candidates:
            continue
        imported = graph.imports_of(t) & set(candidates)
        chosen = sorted(imported) or _nearest(t, candidates)
        for p in chosen:
            if out.get(p, (0.0, ""))[0] < s:
                out[p] = (s, t)
    return out


def _nearest(test: str, candidates: list[str]) -> list[str]:
    """The candidates sharing the longest leading folders with ``test`` (ties: all of them)."""
    parts = test.split("/")

    def shared(p: str) -> int:
        k = 0
        for a, b in zip(parts[:-1], p.split("/")[:-1], strict=False):
            if a != b:
                break
            k += 1
        return k

    best = max(shared(p) for p in candidates)
    return sorted(p for p in candidates if shared(p) == best) if best else []


def feedback_scores(seeds: Mapping[str, float], graph: Graph, text: Mapping[str, float],
                    top: int = FEEDBACK_SEEDS) -> dict[str, tuple[float, str]]:
    """Pseudo-relevance feedback over imports: a file that one of the ``top`` best seeds
    imports, or that imports one among the files the text reached, scores the seed's
    weight × the square root of its own text score."""
    out: dict[str, tuple[float, str]] = {}
    best = sorted(seeds.items(), key=lambda x: (-x[1], x[0]))[:top]
    for seed, weight in best:
        near = set(graph.imports_of(seed))
        near |= {p for p in text if p != seed and seed in graph.imports_of(p)}
        for p in near:
            if p == seed:
                continue
            v = weight * text.get(p, 0.0) ** 0.5  # a weak match one import away counts
            if v > out.get(p, (0.0, ""))[0]:
                out[p] = (v, seed)
    return out
