"""How much wall time the genesis hooks add to ``git commit``.

Each scenario has its own temporary repository and store; every run stages a
new file and times ``git commit`` alone.  Runs of the scenarios are
interleaved, so that a change in the machine's load touches all of them alike.
The median of ``--runs`` commits (default 20) is reported, with the time added
over a plain ``git commit``.

    python bench/hook_bench.py [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from genesis_git.git.repo import find_repo
from genesis_git.hooks.install import install
from genesis_git.kernel.gitrun import no_git_env
from genesis_git.store.connect import connect

SCENARIOS = (
    ("plain", "plain git commit, no hooks", False, False, "background"),
    ("no-story", "hooks, no story id in the message", True, False, "background"),
    ("story", "hooks, STORY-n + active session (blobs indexed in the background)", True, True,
     "background"),
    ("story-inline", "hooks, STORY-n + active session (blobs indexed inline)", True, True,
     "inline"),
)


def _git(root: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _prepare(base: Path, key: str, hooks: bool, session: bool, index: str) -> dict:
    root = base / key
    home = base / f"{key}-store"
    env = no_git_env({"GENESIS_HOME": str(home), "GENESIS_HOOKS_INDEX": index,
                     "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
                     "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"})
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main", env=env)
    _git(root, "config", "commit.gpgsign", "false", env=env)
    (root / "README.md").write_text("# bench\n")
    _git(root, "add", "README.md", env=env)
    _git(root, "commit", "-q", "-m", "initial", env=env)
    if hooks:
        saved = os.environ.get("GENESIS_HOME")
        os.environ["GENESIS_HOME"] = str(home)
        try:
            install(find_repo(root), python=sys.executable)
            conn = connect(home / "genesis.db")
            if session:
                conn.execute("INSERT INTO sessions(id, project_id, worktree, source_doc, status) "
                             "VALUES ('s-bench', 'bench', ?, 'README.md', 'active')", (str(root),))
                conn.execute("INSERT INTO session_artifacts(session_id, project_id, artifact_role,"
                             " summary) VALUES ('s-bench', 'bench', 'decision', 'a decision')")
            conn.close()
        finally:
            if saved is None:
                os.environ.pop("GENESIS_HOME", None)
            else:
                os.environ["GENESIS_HOME"] = saved
    return {"root": root, "env": env, "story": session, "times": [], "cpu": [], "n": 0}


def _one(sc: dict) -> float:
    sc["n"] += 1
    n = sc["n"]
    rel = f"src/module_{n}.py"
    path = sc["root"] / rel
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"def function_{n}(order_id):\n    return order_id * {n}\n")
    _git(sc["root"], "add", rel, env=sc["env"])
    msg = f"STORY-{n}: change {n}" if sc["story"] else f"change {n}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(["git", "commit", "-q", "-m", msg], cwd=sc["root"], env=sc["env"],
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"commit failed: {proc.returncode} {proc.stderr}")
    sc["cpu"].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return took


def _python_floor(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _bound(sc: dict) -> int:
    db = Path(sc["env"]["GENESIS_HOME"]) / "genesis.db"
    if not db.exists():
        return 0
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM story_links").fetchone()[0])
    finally:
        conn.close()


def _compile_package() -> None:
    """Byte-compile genesis_git as ``pip install`` does for a wheel, so that the hooks do not
    compile their modules on every run (an editable install with PYTHONDONTWRITEBYTECODE
    set would)."""
    import compileall

    import genesis_git

    compileall.compile_dir(str(Path(genesis_git.__file__).parent), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="timed commits per scenario")
    ap.add_argument("--warmup", type=int, default=2, help="untimed commits per scenario first")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not byte-compile genesis_git first")
    args = ap.parse_args()
    if not args.no_compile:
        _compile_package()
    with tempfile.TemporaryDirectory(prefix="genesis-hook-bench-") as tmp:
        base = Path(tmp)
        scs = {key: _prepare(base, key, hooks, session, index)
               for key, _label, hooks, session, index in SCENARIOS}
        for _ in range(args.warmup):
            for sc in scs.values():
                _one(sc)
        for sc in scs.values():
            sc["cpu"].clear()
        for _ in range(args.runs):
            for sc in scs.values():
                sc["times"].append(_one(sc))
        time.sleep(1.0)  # let background indexers finish before the folder goes
        floor = _python_floor(args.runs)
        bound = {key: _bound(sc) for key, sc in scs.items()}
    plain = statistics.median(scs["plain"]["times"])
    plain_cpu = statistics.median(scs["plain"]["cpu"])
    rows = []
    for key, label, *_ in SCENARIOS:
        times = sorted(scs[key]["times"])
        med = statistics.median(times)
        cpu = statistics.median(scs[key]["cpu"])
        rows.append({"scenario": key, "label": label, "median_s": round(med, 4),
                     "added_s": round(med - plain, 4), "min_s": round(times[0], 4),
                     "p90_s": round(times[int(0.9 * (len(times) - 1))], 4),
                     "cpu_s": round(cpu, 4), "added_cpu_s": round(cpu - plain_cpu, 4),
                     "commits_bound": bound[key]})
    info = {"runs": args.runs, "python": platform.python_version(),
            "git": subprocess.run(["git", "--version"], capture_output=True,
                                  text=True).stdout.strip(),
            "cpus": os.cpu_count(), "load_avg": [round(x, 2) for x in os.getloadavg()],
            "python_start_s": round(floor, 4),
            "byte_compiled_first": not args.no_compile,
            "target_added_s": 0.15}
    if args.json:
        print(json.dumps({"info": info, "rows": rows}, indent=2))
        return
    print(f"genesis hook overhead: median of {args.runs} `git commit` runs per scenario "
          f"({info['git']}, Python {info['python']}, {info['cpus']} CPUs, "
          f"load {info['load_avg']})")
    print(f"{'scenario':<68} {'median':>7} {'added':>7} {'min':>7} {'p90':>7} "
          f"{'cpu':>7} {'+cpu':>7}")
    for r in rows:
        added = "-" if r["scenario"] == "plain" else f"+{r['added_s']:.3f}"
        added_cpu = "-" if r["scenario"] == "plain" else f"+{r['added_cpu_s']:.3f}"
        print(f"{r['label']:<68} {r['median_s']:>6.3f}s {added:>7} {r['min_s']:>6.3f}s "
              f"{r['p90_s']:>6.3f}s {r['cpu_s']:>6.3f}s {added_cpu:>7}")
    print("(wall times; cpu = user+sys of git and its hooks, which the machine's load does "
          "not inflate as much; the background indexer is not included)")
    print(f"(a bare `python -c pass` takes {floor:.3f}s here; each hooked commit starts Python "
          f"twice; target: +{info['target_added_s']:.2f}s)")


if __name__ == "__main__":
    main()
