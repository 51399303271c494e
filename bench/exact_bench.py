"""Exact identifiers as an agent searches them: ``genesis search NAME`` on every name a tree defines.

For each top-level function and class of the tree's Python source (not its tests;
read with :mod:`ast`, so the check does not lean on genesis's own chunker), the
name is searched as written (``genesis search echo``, ``genesis search Context``),
in process, ten results. Two questions, the issue's:

* **def@3** — is a chunk that overlaps one of the name's definitions among the
  first three results?
* **cover** — do the ten results reach at least min(5, n) of the n files that
  ``git grep -lwI NAME`` lists (text files only)?

With ``--files``, the name is searched as ``genesis search --files -k 10`` runs it
(files fused with impact's, unless the query is one identifier), and def@3 asks
whether a file with one of its definitions is among the first three files.

Names are split into *plain words* (``echo``, ``progressbar``: lower-case letters and
digits only, which search once read as words), *other identifiers*
(``url_for``, ``Context``, ``HTTPError``) and *names without a token*: a stopword or
one letter (``has``, ``N``, ``a``), which the index keeps no token of.  Those are few,
so every one is searched, beyond the even sample of the others.  A fourth group is
a sample of the *module-level variables* with a token (``CYGWIN = …``,
``current_app: T = …``) that are not also a function or class name.  Run it with the
interpreter of the code to measure; the session is the repository's own
(``GENESIS_HOME`` as set).

    python bench/exact_bench.py --repo ~/src/click [--limit 300] [--limit-variables 100]
        [--files] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, TypeVar

from genesis_git.app.facade import Genesis
from genesis_git.index.classify import is_test_path
from genesis_git.index.session import ensure_session, open_context
from genesis_git.search import SearchOptions, group_by_file, search
from genesis_git.text.tokens import first_token

Places = dict[str, list[tuple[str, int, int]]]
T = TypeVar("T")


def definitions(repo: Path) -> tuple[Places, Places]:
    """Each top-level function and class name of the tree's non-test ``.py`` files, with its
    ``(path, first line, last line)`` places; and apart, each module-level variable
    (``CYGWIN = …``, ``current_app: T = …``) that is not also such a name."""
    files = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=repo, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    out: Places = {}
    variables: Places = {}
    for path in sorted(f for f in files if f and not is_test_path(f)):
        try:
            tree = ast.parse((repo / path).read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.setdefault(node.name, []).append((path, first, node.end_lineno or first))
            for name, first, last in _tokenless_places(node):
                out.setdefault(name, []).append((path, first, last))
            for name, first, last in _variables(node):
                variables.setdefault(name, []).append((path, first, last))
    return out, {n: places for n, places in variables.items() if n not in out}


def _tokenless_places(node: ast.stmt) -> list[tuple[str, int, int]]:
    """Names without a token that ``node`` (a top-level statement) defines: a module-level
    ``S = …`` or a method ``Basic.has`` (so that the few such names are many enough)."""
    out = _assigned(node)
    if isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
                out.append((item.name, first, item.end_lineno or first))
    return [place for place in out if not first_token(place[0])]


def _variables(node: ast.stmt) -> list[tuple[str, int, int]]:
    """The names with a token that ``node`` (a top-level statement) assigns."""
    return [place for place in _assigned(node) if first_token(place[0])]


def _assigned(node: ast.stmt) -> list[tuple[str, int, int]]:
    """The names ``node`` assigns: ``S = …``, ``a = b = …``, ``g: T = …``."""
    last = node.end_lineno or node.lineno
    if isinstance(node, ast.Assign):
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        names = [node.target.id]
    else:
        names = []
    return [(n, node.lineno, last) for n in names]


def grep_files(repo: Path, name: str) -> set[str]:
    proc = subprocess.run(["git", "grep", "-lwI", "-e", name], cwd=repo, capture_output=True,
                          text=True)
    return set(proc.stdout.split())


def plain(name: str) -> bool:
    return name.isascii() and name.isalnum() and name.islower()


def sample(names: list[T], limit: int) -> list[T]:
    """At most ``limit`` of the sorted ``names``, evenly spaced (the same every run)."""
    if len(names) <= limit:
        return names
    step = len(names) / limit
    return [names[int(i * step)] for i in range(limit)]


def evaluate(repo: Path, limit: int, limit_variables: int, files: bool = False
             ) -> dict[str, Any]:
    defs, variables = definitions(repo)
    names = sample(sorted(n for n in defs if first_token(n)), limit)
    names += sorted(n for n in defs if not first_token(n))
    names += sample(sorted(variables), limit_variables)
    defs = {**variables, **defs}
    ctx = open_context(repo)
    sid = ensure_session(ctx)
    rows: list[dict[str, Any]] = []
    g = Genesis(repo) if files else None
    for name in names:
        places = defs[name]
        if g is not None:
            run = g.search.run(name, g.search.options(files=True, k=10), refresh=False)
            groups = group_by_file(run.hits)
            paths = [fh.path for fh in groups]
            hits = [fh.chunks[0] for fh in groups]
            def3 = bool({p for p, _, _ in places} & set(paths[:3]))
        else:
            hits = search(ctx, sid, name, SearchOptions(k=10)).hits
            def3 = any(h.path == p and h.start_line <= last and h.end_line >= first
                       for h in hits[:3] for p, first, last in places)
        users = grep_files(repo, name)
        reached = {h.path for h in hits} & users
        need = min(5, len(users))
        rows.append({"name": name, "plain": plain(name), "tokenless": not first_token(name),
                     "variable": name in variables,
                     "def3": def3,
                     "cover": len(reached) >= need, "files": len(users),
                     "reached": len(reached), "first": [f"{h.path}:{h.start_line}"
                                                        for h in hits[:3]]})
    if g is not None:
        g.close()
    return {"repo": str(repo), "files": files, "names": len(rows), "rows": rows}


def summary(rows: list[dict[str, Any]]) -> str:
    lines = ["| names | n | def@3 | cover |", "|---|---|---|---|"]
    def named(r: dict[str, Any]) -> bool:  # a function or class with a token
        return not r.get("tokenless") and not r.get("variable")

    groups = (("plain words", lambda r: r["plain"] and named(r)),
              ("other identifiers", lambda r: not r["plain"] and named(r)),
              ("names without a token", lambda r: r.get("tokenless", False)),
              ("module-level variables, plain words", lambda r: r.get("variable", False)
               and r["plain"]),
              ("module-level variables, other identifiers", lambda r: r.get("variable", False)
               and not r["plain"]),
              ("all", lambda r: True))
    for label, pick in groups:
        part = [r for r in rows if pick(r)]
        if not part:
            continue
        d = sum(r["def3"] for r in part) / len(part)
        c = sum(r["cover"] for r in part) / len(part)
        lines.append(f"| {label} | {len(part)} | {d:.3f} | {c:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a git working tree")
    ap.add_argument("--limit", type=int, default=300, help="names at most (evenly sampled)")
    ap.add_argument("--limit-variables", type=int, default=100,
                    help="module-level variables at most (evenly sampled)")
    ap.add_argument("--files", action="store_true",
                    help="search as --files does: a definition's file among the first three")
    ap.add_argument("--json-out", type=Path, help="write every name's row here")
    args = ap.parse_args(argv)
    result = evaluate(args.repo.resolve(), args.limit, args.limit_variables, args.files)
    print(f"{result['repo']}: {result['names']} names")
    print(summary(result["rows"]))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
