"""Methods as an agent writes them: ``Class.method``, where ``Class`` may inherit the method.

For the classes of a tree's Python source (not its tests), read with :mod:`ast` (so the
check does not lean on genesis's own reading of class statements): each class's bases
and module-level aliases (``Matrix = MutableDenseMatrix``), their method resolution
order (C3, as Python computes it), and the methods each class defines in its body.  A
pair ``Class.method`` is *own* when ``Class`` defines ``method``, *inherited* when the
first class of its order that defines it is another one.  A name that a class of the
order assigns in its body (``_print_RootSum = _print_not_supported``) before any class
defines it with ``def`` is left out: that assignment is what Python finds.  Only class
names that one class statement of the tree defines are used (a name defined twice has
no single answer).  For an even sample of each kind, two questions:

* **symbols@1** — does ``genesis symbols Class.method`` give, first, the definition that
  Python would call (its file, and a range that holds its ``def`` line, or one of its
  ``@overload`` stubs')?
* **search@1 / search@3** — is a chunk that holds that ``def`` line among the first one
  / three results of ``genesis search Class.method``?

Run it with the interpreter of the code to measure; the session is the repository's
own (``GENESIS_HOME`` as set).

    python bench/method_bench.py --repo ~/src/sympy [--limit 200] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from exact_bench import sample  # beside this file

from genesis_git.app.facade import Genesis
from genesis_git.index.classify import is_test_path

Method = tuple[str, list[int]]  # path, the lines of its defs (overloads: several)


class Tree:
    """The classes of a tree: bases, aliases and methods by class name."""

    def __init__(self, repo: Path) -> None:
        files = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=repo, check=True,
                               capture_output=True, text=True).stdout.split("\0")
        self.bases: dict[str, list[str]] = {}
        self.methods: dict[str, dict[str, Method]] = {}
        self.count: dict[str, int] = {}
        self.assigned: dict[str, set[str]] = {}  # names a class body assigns (x = f)
        for path in sorted(f for f in files if f and not is_test_path(f)):
            try:
                tree = ast.parse((repo / path).read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
                continue
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.count[node.name] = self.count.get(node.name, 0) + 1
                    self.bases[node.name] = [n for n in map(_name, node.bases) if n]
                    own: dict[str, Method] = {}
                    for item in node.body:
                        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            own.setdefault(item.name, (path, []))[1].append(item.lineno)
                    self.methods[node.name] = own
                    self.assigned[node.name] = {
                        t.id for item in node.body if isinstance(item, (ast.Assign, ast.AnnAssign))
                        for t in (item.targets if isinstance(item, ast.Assign) else [item.target])
                        if isinstance(t, ast.Name)}
                elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id != node.value.id:
                            self.count[target.id] = self.count.get(target.id, 0) + 1
                            self.bases[target.id] = [node.value.id]
                            self.methods[target.id] = {}

    def mro(self, name: str, below: frozenset[str] = frozenset()) -> list[str] | None:
        """C3, or ``None`` where it fails, a name is defined more than once or is its own
        ancestor."""
        if self.count.get(name) != 1 or name in below:
            return None
        known = [b for b in self.bases.get(name, []) if b in self.bases]
        lines = [self.mro(b, below | {name}) for b in known]
        if any(m is None for m in lines):
            return None
        seqs = [list(m) for m in lines if m] + [known]
        out = [name]
        while any(seqs):
            seqs = [s for s in seqs if s]
            head = next((s[0] for s in seqs if not any(s[0] in t[1:] for t in seqs)), None)
            if head is None:
                return None
            out.append(head)
            seqs = [s[1:] if s[0] == head else s for s in seqs]
        return out

    def pairs(self) -> tuple[list[tuple[str, str, Method]], list[tuple[str, str, Method]]]:
        """``(Class, method, where Python finds it)``, own and inherited."""
        own: list[tuple[str, str, Method]] = []
        inherited: list[tuple[str, str, Method]] = []
        for name in sorted(self.bases):
            order = self.mro(name)
            if order is None or any(self.count.get(c) != 1 for c in order):
                continue
            seen: set[str] = set()
            for cls in order:
                seen |= self.assigned.get(cls, set()) - set(self.methods.get(cls, {}))
                for method, place in sorted(self.methods.get(cls, {}).items()):
                    if method not in seen:
                        seen.add(method)
                        (own if cls == name else inherited).append((name, method, place))
        return own, inherited


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return None


def evaluate(repo: Path, limit: int) -> dict[str, Any]:
    own, inherited = Tree(repo).pairs()
    rows: list[dict[str, Any]] = []
    with Genesis(repo) as g:
        for kind, pairs in (("own", own), ("inherited", inherited)):
            for cls, method, (path, lines) in sample(pairs, limit):
                query = f"{cls}.{method}"
                started = time.perf_counter()
                found = g.symbols.lookup(query, refresh=False)["definitions"]
                symbols_s = time.perf_counter() - started
                started = time.perf_counter()
                hits = g.search.run(query, g.search.options(k=3), refresh=False).hits
                search_s = time.perf_counter() - started
                right = [h.path == path and any(h.start_line <= n <= h.end_line for n in lines)
                         for h in hits]
                first = found[0] if found else None
                rows.append({
                    "kind": kind, "query": query, "path": path, "lines": lines,
                    "symbols@1": first is not None and first["path"] == path and any(
                        first["line"] <= n <= max(first["end_line"], first["line"])
                        for n in lines),
                    "search@1": any(right[:1]), "search@3": any(right),
                    "first": f"{found[0]['path']}:{found[0]['line']}" if found else None,
                    "symbols_s": round(symbols_s, 4), "search_s": round(search_s, 4)})
    return {"repo": str(repo), "pairs": {"own": len(own), "inherited": len(inherited)},
            "rows": rows}


def summary(rows: list[dict[str, Any]]) -> str:
    out = ["| pairs | n | symbols@1 | search@1 | search@3 | symbols median s | search median s |",
           "|---|---|---|---|---|---|---|"]
    for kind in ("own", "inherited"):
        part = [r for r in rows if r["kind"] == kind]
        if not part:
            continue
        n = len(part)

        def rate(key: str, part: list[dict[str, Any]] = part, n: int = n) -> str:
            return f"{sum(bool(r[key]) for r in part) / n:.3f}"

        def median(key: str, part: list[dict[str, Any]] = part) -> str:
            values = sorted(r[key] for r in part)
            return f"{values[len(values) // 2]:.3f}"

        out.append(f"| {kind} | {n} | {rate('symbols@1')} | {rate('search@1')} | "
                   f"{rate('search@3')} | {median('symbols_s')} | {median('search_s')} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a git working tree")
    ap.add_argument("--limit", type=int, default=200, help="pairs of each kind at most")
    ap.add_argument("--json-out", type=Path, help="write every pair's row here")
    args = ap.parse_args(argv)
    result = evaluate(args.repo.resolve(), args.limit)
    print(f"{result['repo']}: {result['pairs']['own']} own and "
          f"{result['pairs']['inherited']} inherited pairs")
    print(summary(result["rows"]))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
