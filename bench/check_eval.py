"""Quality of ``genesis check --staged``: leave one file out of real commits.

The cases, by a fixed rule: the non-merge commits of the repository's history (from the
given ref) whose diff against their parent modified 3 to 6 existing files and did nothing
else (no addition, deletion or rename), sorted by SHA, 60 of them drawn with
``random.Random(25)``; from each, one file drawn with the same generator is left out.

For each case, a clone of the repository is put at the commit's *parent* (detached,
forced), the commit's changes to the other files are staged (``git checkout COMMIT --
FILES``), and ``genesis check --staged`` is asked, through the same
:class:`~genesis_git.app.facade.Genesis` call as the command, for its whole ranking
(``min_confidence = 0``, ten items).  Only history reachable from the parent is read: the
co-change statistics are ``git log`` of HEAD, which is the parent.  Is the left-out file at
rank 1, within 5, within 10?

The baseline is plain co-change counting over the last 3,000 commits before the parent:
each file scores the number of (seed, commit) pairs in which it changed with one of the
staged files; ties by path.

False alarms: every commit of the set staged *whole*, at its parent: how many items does the
default output (the ``check.min_confidence`` threshold) show?  Median and 90th percentile.

    python bench/check_eval.py --repo /path/to/click-clone --repo /path/to/chatchat-clone
    python bench/check_eval.py --speed /path/to/sympy-clone

Speed (``--speed``): ten commits of 8 to 12 files, drawn with ``random.Random(25)`` from the
3,000 newest non-merge commits, each checked as ``genesis check SHA`` three times in a
clone that has a store: in process (the first run at a base reads its history with
``git log``; the next ones find it in the store) and through the console script (the
whole command: Python starting, imports, the check), with the CPU seconds of the warm runs
(this process and git), which do not grow with the machine's load.

Each ``--repo`` is a full-history clone *with a work tree* that this script may check out
at will (never a clone you work in).  ``GENESIS_HOME`` is pointed at a scratch folder so
that no store is written into the clones' git directories.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

SEED = 25
CASES = 60
BASELINE_COMMITS = 3000


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", "replace")


def make_cases(repo: Path, ref: str, n: int = CASES, seed: int = SEED) -> list[dict[str, Any]]:
    out = git(repo, "-c", "core.quotePath=false", "log", "--no-merges", "--no-renames",
              "--format=@%H %P", "--name-status", ref)
    commits: list[list[Any]] = []
    for line in out.splitlines():
        if line.startswith("@"):
            sha, *parents = line[1:].split()
            commits.append([sha, parents[0] if parents else None, []])
        elif line.strip():
            status, path = line.split("\t", 1)
            commits[-1][2].append((status, path))
    pool = [c for c in commits
            if c[1] and 3 <= len(c[2]) <= 6 and all(s == "M" for s, _ in c[2])]
    pool.sort(key=lambda c: c[0])
    rng = random.Random(seed)
    cases = []
    for sha, parent, files in rng.sample(pool, min(n, len(pool))):
        paths = sorted(p for _, p in files)
        cases.append({"commit": sha, "parent": parent, "files": paths, "left": rng.choice(paths)})
    return cases


def baseline(repo: Path, parent: str, seeds: set[str]) -> list[str]:
    out = git(repo, "-c", "core.quotePath=false", "log", "--no-merges", "--no-renames",
              f"--max-count={BASELINE_COMMITS}", "--format=%x01", "--name-only", parent)
    scores: Counter[str] = Counter()
    for block in out.split("\x01"):
        files = {p for p in block.splitlines() if p}
        k = len(files & seeds)
        if k:
            for f in files - seeds:
                scores[f] += k
    return [p for p, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


def stage(repo: Path, case: dict[str, Any], files: list[str]) -> None:
    git(repo, "checkout", "-q", "-f", "--detach", case["parent"], check=False)
    if git(repo, "rev-parse", "HEAD").strip() != case["parent"]:
        raise RuntimeError(f"{repo}: could not check out {case['parent']}")
    git(repo, "checkout", case["commit"], "--", *files)


def ask(repo: Path, threshold: float | None) -> tuple[list[str], int, float]:
    """The ranked paths (threshold 0), the number shown by default, and the seconds."""
    from genesis_git.app.facade import Genesis

    with Genesis(repo) as g:
        started = time.perf_counter()
        result = g.check.run(None, staged=True, min_confidence=0.0, top=10, story=False)
        seconds = time.perf_counter() - started
    default = threshold if threshold is not None else g.workspace.config.settings.check.min_confidence
    shown = sum(1 for m in result.missing if m.confidence >= default)
    return [m.path for m in result.missing], shown, seconds


def recall(rows: list[tuple[str, list[str]]]) -> dict[str, float]:
    return {f"R@{k}": round(sum(left in ranked[:k] for left, ranked in rows) / len(rows), 3)
            for k in (1, 5, 10)}


def evaluate(repo: Path, ref: str, limit: int | None, threshold: float | None) -> dict[str, Any]:
    cases = make_cases(repo, ref)[:limit]
    tool, base, alarms, times = [], [], [], []
    for i, case in enumerate(cases, 1):
        kept = [f for f in case["files"] if f != case["left"]]
        stage(repo, case, kept)
        ranked, _, seconds = ask(repo, threshold)
        times.append(seconds)
        tool.append((case["left"], ranked))
        base.append((case["left"], baseline(repo, case["parent"], set(kept))))
        stage(repo, case, case["files"])
        _, shown, _ = ask(repo, threshold)
        alarms.append(shown)
        print(f"  {i:>2}/{len(cases)} {seconds:.2f}s {case['commit'][:10]} left {case['left']}: "
              f"rank {ranked.index(case['left']) + 1 if case['left'] in ranked else '-'}, "
              f"complete shows {shown}", file=sys.stderr)
    alarms.sort()
    return {"repo": repo.name, "cases": len(cases), "check": recall(tool),
            "baseline": recall(base),
            "false_alarms": {"median": statistics.median(alarms),
                             "p90": alarms[min(len(alarms) - 1, int(0.9 * len(alarms)))],
                             "max": alarms[-1]},
            "seconds": {"median": round(statistics.median(times), 3),
                        "max": round(max(times), 3)}}


def speed(repo: Path, runs: int = 3) -> dict[str, Any]:
    from genesis_git.app.facade import Genesis

    out = git(repo, "log", "--no-merges", "--format=@%H", "--name-only", "--max-count=3000",
              "HEAD")
    commits = [block.split("\n", 1) for block in out.split("@")[1:]]
    pool = sorted(sha for sha, names in commits if 8 <= len(names.split()) <= 12)
    chosen = random.Random(SEED).sample(pool, min(10, len(pool)))
    files = len(git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    cold, warm, console, cpu = [], [], [], []
    for sha in chosen:
        for i in range(runs):
            with Genesis(repo) as g:
                _ = g.workspace.context  # a store, so that the history is kept
                before = _cpu()
                result = g.check.run(sha)
                if i:
                    cpu.append(_cpu() - before)
            (cold if i == 0 else warm).append(result.seconds)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "genesis_git", "check", sha], cwd=repo,
                       capture_output=True, check=True)
        console.append(time.perf_counter() - started)
    load = os.getloadavg()[0]
    return {"repo": repo.name, "files": files, "commits": len(chosen),
            "cold_median": round(statistics.median(cold), 3), "cold_max": round(max(cold), 3),
            "warm_median": round(statistics.median(warm), 3), "warm_max": round(max(warm), 3),
            "console_median": round(statistics.median(console), 3),
            "console_max": round(max(console), 3),
            "warm_cpu_median": round(statistics.median(cpu), 3), "warm_cpu_max": round(max(cpu), 3),
            "load_average": round(load, 2)}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): what a run costs on an
    idle machine, whatever else is running beside it."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repo", type=Path, action="append", default=[])
    ap.add_argument("--speed", type=Path, help="a large clone to time `genesis check SHA` on")
    ap.add_argument("--ref", default="HEAD", help="where the cases are drawn from (HEAD)")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--threshold", type=float, help="the default threshold (check.min_confidence)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    os.environ.setdefault("GENESIS_HOME", tempfile.mkdtemp(prefix="check-eval-"))
    if args.speed:
        print(json.dumps(speed(args.speed.resolve())))
    results = []
    for repo in args.repo:
        ref = git(repo, "rev-parse", args.ref).strip()
        res = evaluate(repo.resolve(), ref, args.limit, args.threshold)
        git(repo, "checkout", "-q", "-f", "--detach", ref, check=False)
        results.append(res)
        print(json.dumps(res))
    if not results:
        return
    print("\n| repository | cases | R@1 | R@5 | R@10 | baseline R@1 | R@5 | R@10 | "
          "complete: median shown | p90 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        c, b, f = r["check"], r["baseline"], r["false_alarms"]
        print(f"| {r['repo']} | {r['cases']} | {c['R@1']} | {c['R@5']} | {c['R@10']} | "
              f"{b['R@1']} | {b['R@5']} | {b['R@10']} | {f['median']} | {f['p90']} |")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
