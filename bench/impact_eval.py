"""Quality of ``genesis impact`` on the development cases, with per-signal ablations.

For every case of a development set (``click.jsonl``,
``langchain-chatchat_cjk.jsonl``): a scratch clone at the case's parent with
no history beyond it (the recipe of the set's README, checked for leaks),
a session index of its tree, then the impact ranking of the commit message,
run once per variant:

* ``full`` — every signal;
* ``no-history`` — without co-change and churn;
* ``no-cochange`` / ``no-commits`` — without one of the history signals;
* ``no-graph`` — without the reference graph;
* ``text`` — text, path and definitions only;
* ``search`` — ``genesis search --files`` (hybrid retrieval), for comparison.

Recall@5, recall@10 and MRR are printed per variant, with and without
changelog files (removed from gold and ranking alike).  Scratch clones are
kept under ``<data>/scratch`` so that a second run skips the cloning.

    python bench/impact_eval.py --data /path/to/bench-data --cases /path/to/cases \
        --set click --set chatchat [--limit 10] [--out results.json]

``<data>`` must hold ``click.git`` and ``chatchat.git``: full-history clones
of ``pallets/click`` and ``chatchat-space/Langchain-Chatchat``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

SETS = {
    "click": ("click.jsonl", "click.git"),
    "chatchat": ("langchain-chatchat_cjk.jsonl", "chatchat.git"),
}
VARIANTS = ("full", "no-history", "no-cochange", "no-commits", "no-graph", "text", "search")
BASELINE_R10 = {"click": 0.614, "chatchat": 0.645}


def _git(cwd: Path, *args: str, check: bool = True, input: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, input=input)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", "replace")


def scratch_clone(full: Path, dest: Path, parent: str, commit: str) -> Path:
    """A repository at ``parent`` whose object store holds only ``parent``'s history.

    The same result as the README's recipe (clone, detach, drop refs, prune),
    built directly: the objects reachable from ``parent`` are packed into a
    fresh repository.  Unlike ``git clone``, this tolerates the few large
    blobs some copies lack (``--missing=allow-any``); they show as deleted.
    """
    marker = dest / ".git" / "bench-ready"
    if marker.is_file() and marker.read_text().strip() == parent:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    _git(dest, "init", "--quiet")
    objects = _git(full, "rev-list", "--objects", "--missing=allow-any", parent)
    names = "\n".join(line.split(" ", 1)[0] for line in objects.splitlines() if line) + "\n"
    _git(full, "pack-objects", "--quiet", "--missing=allow-any",
         str(dest / ".git" / "objects" / "pack" / "pack"), input=names.encode())
    _git(dest, "checkout", "--quiet", "--detach", parent, check=False)
    if subprocess.run(["git", "cat-file", "-e", commit], cwd=dest,
                      capture_output=True).returncode == 0:
        raise RuntimeError(f"LEAK: {commit} is still present in {dest}")
    if _git(dest, "rev-parse", "HEAD").strip() != parent:
        raise RuntimeError(f"{dest}: HEAD is not {parent}")
    if _git(dest, "for-each-ref").strip():
        raise RuntimeError(f"{dest}: has refs")
    marker.write_text(parent + "\n")
    return dest


def is_changelog(path: str) -> bool:
    from genesis_git.impact.kinds import file_flags

    return "changelog" in file_flags(path)


def metrics(cases: list[tuple[list[str], list[str]]]) -> dict[str, float]:
    r5 = r10 = mrr = 0.0
    for gold, ranked in cases:
        g = set(gold)
        r5 += len(g & set(ranked[:5])) / len(g)
        r10 += len(g & set(ranked[:10])) / len(g)
        for i, p in enumerate(ranked, 1):
            if p in g:
                mrr += 1.0 / i
                break
    n = max(len(cases), 1)
    return {"n": len(cases), "R@5": round(r5 / n, 3), "R@10": round(r10 / n, 3),
            "MRR": round(mrr / n, 3)}


def without_changelog(gold: list[str], ranked: list[str]) -> tuple[list[str], list[str]] | None:
    g = [p for p in gold if not is_changelog(p)]
    if not g:
        return None
    return g, [p for p in ranked if not is_changelog(p)]


def run_case(scratch: Path, query: str, variants: list[str], weights: dict[str, Any], k: int
             ) -> dict[str, list[str]]:
    from genesis_git.impact.analyse import analyze
    from genesis_git.impact.combine import RankOptions, Weights, rank
    from genesis_git.impact.corpus_text import load_session_corpus
    from genesis_git.impact.history import load_history
    from genesis_git.index.session import ensure_session, open_context

    ctx = open_context(scratch)
    try:
        sid = ensure_session(ctx)
        corpus = load_session_corpus(ctx.conn, sid)
        history = load_history(ctx.conn, ctx.repo)
        q = analyze(query)
        w = replace(Weights(), **weights)
        out: dict[str, list[str]] = {}
        for v in variants:
            if v == "search":
                out[v] = _search(ctx, sid, query, k)
                continue
            vw = w
            if v == "no-cochange":
                vw = replace(w, cochange=0.0)
            elif v == "no-commits":
                vw = replace(w, commits=0.0)
            opts = RankOptions(graph=v not in ("no-graph", "text"),
                               history=v not in ("no-history", "text"), stories=False, weights=vw)
            ranking = rank(corpus, q, opts, history, None)
            out[v] = [f.path for f in ranking.files[:k]]
        return out
    finally:
        ctx.conn.close()


def _search(ctx: Any, sid: str, query: str, k: int) -> list[str]:
    from genesis_git.search import SearchOptions, group_by_file, search

    try:
        res = search(ctx, sid, query, SearchOptions(k=k, files=True))
    except Exception as exc:  # a query of stopwords only
        print(f"  search failed: {exc}", file=sys.stderr)
        return []
    return [f.path for f in group_by_file(res.hits)][:k]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with click.git, chatchat.git")
    ap.add_argument("--cases", type=Path, required=True, help="folder with the case JSONL files")
    ap.add_argument("--set", action="append", choices=sorted(SETS), help="development set(s)")
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="variants to run")
    ap.add_argument("--limit", type=int, default=0, help="first N cases of each set only")
    ap.add_argument("--weights", default="{}", help="JSON overrides of impact.rank.Weights")
    ap.add_argument("-k", type=int, default=50, help="files ranked per case")
    ap.add_argument("--out", type=Path, help="write per-case rankings and metrics as JSON")
    args = ap.parse_args()
    variants = args.variant or list(VARIANTS)
    weights = json.loads(args.weights)
    report: dict[str, Any] = {"weights": weights, "sets": {}}
    for name in args.set or sorted(SETS):
        jsonl, mirror = SETS[name]
        lines = (args.cases / jsonl).read_text(encoding="utf-8").splitlines()
        cases = [json.loads(x) for x in lines if x.strip()]
        if args.limit:
            cases = cases[:args.limit]
        os.environ["GENESIS_HOME"] = str(args.data / "home" / name)
        per_case = []
        t0 = time.perf_counter()
        for i, case in enumerate(cases):
            dest = args.data / "scratch" / name / f"{i:03d}-{case['parent'][:10]}"
            scratch = scratch_clone(args.data / mirror, dest, case["parent"], case["commit"])
            ranked = run_case(scratch, case["query"], variants, weights, args.k)
            per_case.append({"i": i, "gold": case["gold"], "ranked": ranked})
            print(f"\r{name}: {i + 1}/{len(cases)}", end="", file=sys.stderr, flush=True)
        print(f"  ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
        table = {}
        for v in variants:
            pairs = [(c["gold"], c["ranked"][v]) for c in per_case]
            no_cl = [x for x in (without_changelog(g, r) for g, r in pairs) if x is not None]
            table[v] = {"all": metrics(pairs), "no-changelog": metrics(no_cl)}
        report["sets"][name] = {"metrics": table, "cases": per_case}
        print(f"\n{name} (bm25 baseline R@10 {BASELINE_R10[name]})")
        print(f"{'variant':<12} {'R@5':>6} {'R@10':>6} {'MRR':>6}   no-changelog: "
              f"{'R@5':>6} {'R@10':>6} {'MRR':>6}")
        for v, m in table.items():
            a, b = m["all"], m["no-changelog"]
            print(f"{v:<12} {a['R@5']:>6.3f} {a['R@10']:>6.3f} {a['MRR']:>6.3f}   {'':14}"
                  f"{b['R@5']:>6.3f} {b['R@10']:>6.3f} {b['MRR']:>6.3f}")
    if args.out:
        args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
