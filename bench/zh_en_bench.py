"""Chinese queries on English repositories: ``genesis search --files`` before and after.

The cases (``bench/zh_en_click.jsonl``, ``bench/zh_en_sympy.jsonl``) are real
commits of pallets/click and real issues of sympy/sympy (the SWE-bench Lite cases
of the development set), each with a Chinese phrasing of what the commit did or
the issue asked; gold is the files the commit changed that existed at its parent.
Same format and same scratch clones as ``bench/localize.py``; a search that finds
nothing (exit 1) ranks nothing instead of stopping the run.

    python bench/zh_en_bench.py bench/zh_en_click.jsonl --data DIR \\
        --source pallets/click=PATH [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import localize  # noqa: E402  (the scratch clones and the scoring of the development sets)


def ranked(scratch: Path, query: str, home: Path, k: int = 50) -> list[str]:
    """Files of ``genesis search --files --json -k K``; none when nothing matched (exit 1)."""
    env = {n: v for n, v in os.environ.items() if not n.startswith(("GIT_", "GENESIS_"))}
    env["GENESIS_HOME"] = str(home)
    proc = subprocess.run([*localize.GENESIS, "search", "--files", "--json", "-k", str(k), "--",
                           query], cwd=scratch, env=env, capture_output=True, text=True)
    if proc.returncode == 1 and not proc.stdout.strip():
        return []
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"genesis search failed ({proc.returncode}): {proc.stderr.strip()}")
    return [r["path"] for r in json.loads(proc.stdout).get("results", [])]


def evaluate(path: Path, data: Path, sources: dict[str, str]) -> dict[str, Any]:
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    repo = cases[0]["repo"]
    full = localize.prepare_full(repo, sources.get(repo, f"https://github.com/{repo}.git"), data)
    home = Path(tempfile.mkdtemp(prefix="home-", dir=data))
    per_case = []
    for i, case in enumerate(cases):
        where = data / "scratch" / f"zh-{repo.replace('/', '+')}-{i:03d}"
        scratch = localize.prepare_case(full, case, where, reuse=True)
        files = ranked(scratch, case["query"], home)
        s = localize.score(files, case["gold"])
        gold = set(case["gold"])
        s.update({f"acc{k}": float(bool(gold & set(files[:k]))) for k in (1, 5, 10)})
        per_case.append({**s, "query": case["query"], "top": files[:5]})
        print(f"[{i + 1}/{len(cases)}] r@10 {s['r10']:.2f} rr {s['rr']:.2f}  {case['query']}",
              file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    n = len(per_case)
    keys = ("r5", "r10", "rr", "acc1", "acc5", "acc10")
    return {"repo": repo, "cases": n, **{k: sum(c[k] for c in per_case) / n for k in keys},
            "per_case": per_case}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", type=Path)
    ap.add_argument("--data", type=Path, required=True, help="where the clones go")
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=URL")
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args(argv)
    sources = dict(s.split("=", 1) for s in args.source)
    args.data.mkdir(parents=True, exist_ok=True)
    results = [evaluate(p, args.data, sources) for p in args.cases]
    print("| set | cases | R@5 | R@10 | MRR | Acc@1 | Acc@5 | Acc@10 |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['repo']} | {r['cases']} | {r['r5']:.3f} | {r['r10']:.3f} | {r['rr']:.3f} | "
              f"{r['acc1']:.3f} | {r['acc5']:.3f} | {r['acc10']:.3f} |")
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
