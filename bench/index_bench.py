"""Speed and memory of ``genesis session start`` on the standard-library corpus.

Median of 5 runs of each case, end to end through the real CLI:

* cold: an empty store;
* warm: the same session again with nothing changed;
* one file edited, then ``session start``;
* peak RSS of the cold run (``ru_maxrss`` of the child);
* each as a ratio to ``git status`` + ``git ls-files -s`` on the same tree.

The background build of the search base that follows the indexing of a large
session (``search.prebuild_chunks``) is turned off here, so that it does not
run beside the next measured run; its cost is the search benchmark's
"1st query".

    python bench/index_bench.py [--corpus /tmp/genesis-corpus] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import build_stdlib_corpus, compile_genesis  # noqa: E402

# the console script, as a user runs it (``python -m`` would put the corpus on sys.path)
GENESIS = [str(Path(sys.executable).parent / "genesis")]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and the child's peak RSS in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    secs = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return secs, max(before, after) // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=Path(tempfile.gettempdir()) / "genesis-corpus")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    compile_genesis()
    repo = build_stdlib_corpus(args.corpus)
    files = len(subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True,
                               check=True).stdout.split(b"\0")) - 1
    size = sum((repo / p).stat().st_size for p in subprocess.run(
        ["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.split("\n")
        if p and (repo / p).is_file())
    env = dict(os.environ)
    env["GENESIS_SEARCH_PREBUILD_CHUNKS"] = "0"
    git_times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run(["git", "status", "--porcelain"], cwd=repo, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["git", "ls-files", "-s"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
        git_times.append(time.perf_counter() - t0)
    git_base = statistics.median(git_times)
    cold, warm, edited, rss = [], [], [], []
    victim = repo / "json" / "decoder.py"
    original = victim.read_bytes()
    for i in range(args.runs):
        home = Path(tempfile.mkdtemp(prefix="genesis-bench-home-"))
        env["GENESIS_HOME"] = str(home)
        # each cold run is a fresh process tree, so ru_maxrss of children is measured separately
        proc = subprocess.run(
            [sys.executable, "-c",
             "import resource, subprocess, sys;"
             "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
             *GENESIS, "session", "start"], cwd=repo, env=env, capture_output=True, text=True,
            check=True)
        rss.append(int(proc.stdout.strip()) / 1024)
        shutil.rmtree(home)
        home.mkdir()
        t, _ = timed([*GENESIS, "session", "start"], repo, env)
        cold.append(t)
        warm.append(timed([*GENESIS, "session", "start"], repo, env)[0])
        victim.write_bytes(original + f"\n# edit {i}\n".encode())
        edited.append(timed([*GENESIS, "session", "start"], repo, env)[0])
        victim.write_bytes(original)
        shutil.rmtree(home)
    rows = [
        ("cold session start", statistics.median(cold), 5.0, "s"),
        ("warm session start (nothing changed)", statistics.median(warm), 0.35, "s"),
        ("session start after one edit", statistics.median(edited), 0.45, "s"),
    ]
    print(f"corpus: {files} files, {size / 1e6:.1f} MB; git status + ls-files -s: "
          f"{git_base * 1000:.0f} ms; {os.cpu_count()} cores; median of {args.runs} runs")
    print()
    print("| case | median | target | × git status + ls-files |")
    print("|---|---|---|---|")
    for name, value, target, unit in rows:
        print(f"| {name} | {value:.2f} {unit} | ≤ {target} {unit} | {value / git_base:.0f}× |")
    print(f"| peak RSS (cold) | {statistics.median(rss):.0f} MB | ≤ 300 MB | |")


if __name__ == "__main__":
    main()
