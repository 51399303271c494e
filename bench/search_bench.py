"""Speed of ``genesis search`` on the standard-library corpus (and the same copied 5 times).

For each corpus size:

* index it once (``session start`` in-process; its time is reported but it
  is the index benchmark's business);
* the first query, which builds and saves the session's search base;
* in-process latency of :func:`genesis_git.search.search` over 50 mixed
  queries (English words, identifiers, a few Chinese), 3 rounds: p50, p95;
* the same with ``ensure_session(refresh=True)`` before every query;
* end-to-end wall time of the real ``genesis search`` console script
  (refresh included, plain output piped), median over 15 runs.

    python bench/search_bench.py [--copies 1 5] [--data /tmp/genesis-bench]
    python bench/search_bench.py --repo ~/src/sympy --queries bench/sympy_queries.txt

``--repo`` measures a repository of your own (its session kept, in ``GENESIS_HOME`` if
set) instead of the corpus, with the queries of ``--queries`` (one a line).

Targets (2 cores): in-process p50 <= 10 ms, p95 <= 30 ms; CLI median
<= 0.3 s; 5x corpus p50 <= 40 ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import build_stdlib_corpus, compile_genesis, corpus_stats  # noqa: E402

GENESIS = [str(Path(sys.executable).parent / "genesis")]

QUERIES = [
    # English words
    "parse command line arguments", "open a file for reading", "thread pool executor",
    "regular expression match", "json decode error", "http request headers",
    "temporary directory cleanup", "unicode normalization", "socket timeout",
    "date time format", "random number generator seed", "compress data with zlib",
    "email message attachment", "sqlite database connection", "read csv rows",
    "deprecation warning", "abstract base class", "context manager exit",
    "binary search insertion point", "copy file permissions",
    # identifiers
    "ArgumentParser", "ThreadPoolExecutor", "JSONDecodeError", "HTTPConnection",
    "TemporaryDirectory", "namedtuple", "defaultdict", "SequenceMatcher", "urlopen",
    "get_terminal_size", "shutil.copytree", "os.path.join", "__init_subclass__",
    "asyncio.gather", "functools.lru_cache", "subprocess.run check", "ZipFile extractall",
    "EnumMeta", "TextIOWrapper encoding", "sys.setrecursionlimit",
    # Chinese (they reach English code through the synonym table)
    "日志 配置", "数据库 连接 sqlite", "查询 解析", "测试 用例 unittest", "删除 文件",
    "新增 字段", "模板 字符串", "路由 url", "服务 socket", "用户 密码 getpass",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[pos]


def bench_corpus(repo: Path, home: Path, rounds: int, cli_runs: int,
                 queries: list[str] = QUERIES) -> dict[str, float]:
    os.environ["GENESIS_HOME"] = str(home)
    os.chdir(repo)
    from genesis_git.index.session import ensure_session, open_context
    from genesis_git.search import SearchOptions, search
    from genesis_git.search.session_index import clear_memory

    clear_memory()
    out: dict[str, float] = {}
    ctx = open_context()
    t0 = time.perf_counter()
    sid = ensure_session(ctx)
    out["index_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    search(ctx, sid, "warm up query", SearchOptions())
    out["first_query_s"] = time.perf_counter() - t0
    clear_memory()
    t0 = time.perf_counter()
    search(ctx, sid, "load the saved base", SearchOptions())
    out["load_base_s"] = time.perf_counter() - t0
    lat: list[float] = []
    lat_files: list[float] = []
    lat_refresh: list[float] = []
    for _ in range(rounds):
        for q in queries:
            t0 = time.perf_counter()
            search(ctx, sid, q, SearchOptions(k=10))
            lat.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            search(ctx, sid, q, SearchOptions(k=50, files=True))
            lat_files.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            sid = ensure_session(ctx, refresh=True)
            search(ctx, sid, q, SearchOptions(k=10))
            lat_refresh.append(time.perf_counter() - t0)
    out["p50_ms"] = pct(lat, 0.5) * 1000
    out["p95_ms"] = pct(lat, 0.95) * 1000
    out["files_p50_ms"] = pct(lat_files, 0.5) * 1000
    out["files_p95_ms"] = pct(lat_files, 0.95) * 1000
    out["refresh_p50_ms"] = pct(lat_refresh, 0.5) * 1000
    env = dict(os.environ)
    wall: list[float] = []
    wall_nr: list[float] = []
    for i in range(cli_runs):
        q = queries[(i * 7) % len(queries)]
        for target, extra in ((wall, []), (wall_nr, ["--no-refresh"])):
            t0 = time.perf_counter()
            done = subprocess.run([*GENESIS, "search", *extra, "--", q], cwd=repo, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode not in (0, 1):  # 1: nothing found
                raise SystemExit(f"genesis search failed ({done.returncode})")
            target.append(time.perf_counter() - t0)
    out["cli_median_s"] = statistics.median(wall)
    out["cli_no_refresh_median_s"] = statistics.median(wall_nr)
    t0 = time.perf_counter()
    subprocess.run([*GENESIS, "--help"], env=env, check=True, stdout=subprocess.DEVNULL)
    out["cli_help_s"] = time.perf_counter() - t0
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, nargs="+", default=[1, 5])
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "genesis-bench")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cli-runs", type=int, default=15)
    ap.add_argument("--repo", type=Path, default=None,
                    help="measure this repository instead of the standard-library corpus")
    ap.add_argument("--queries", type=Path, default=None,
                    help="the queries, one a line (default: the 50 below)")
    args = ap.parse_args(argv)
    compile_genesis()
    queries = QUERIES if args.queries is None else [
        line.strip() for line in args.queries.read_text(encoding="utf-8").splitlines()
        if line.strip()]
    if args.repo is not None:
        return bench_repo(args.repo.resolve(), args, queries)
    rows = []
    for copies in args.copies:
        repo = build_stdlib_corpus(args.data / f"corpus-x{copies}", copies)
        n, size = corpus_stats(repo)
        home = args.data / f"home-x{copies}"
        shutil.rmtree(home, ignore_errors=True)
        print(f"corpus x{copies}: {n} files, {size / 1e6:.1f} MB; indexing…", file=sys.stderr)
        res = bench_corpus(repo, home, args.rounds, args.cli_runs)
        rows.append((copies, n, size, res))
    print("| corpus | files | MB | index s | 1st query s | load base s | p50 ms | p95 ms "
          "| --files -k 50 p50/p95 ms | refresh+search p50 ms | CLI median s "
          "| CLI --no-refresh s | `genesis --help` s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for copies, n, size, r in rows:
        print(f"| stdlib x{copies} | {n} | {size / 1e6:.1f} | {r['index_s']:.1f} "
              f"| {r['first_query_s']:.2f} | {r['load_base_s']:.3f} | {r['p50_ms']:.1f} "
              f"| {r['p95_ms']:.1f} | {r['files_p50_ms']:.1f} / {r['files_p95_ms']:.1f} "
              f"| {r['refresh_p50_ms']:.1f} | {r['cli_median_s']:.3f} "
              f"| {r['cli_no_refresh_median_s']:.3f} | {r['cli_help_s']:.3f} |")
    return 0


def bench_repo(repo: Path, args: argparse.Namespace, queries: list[str]) -> int:
    home = Path(os.environ.get("GENESIS_HOME") or args.data / "home-repo")
    n, size = corpus_stats(repo)
    print(f"{repo.name}: {n} files, {size / 1e6:.1f} MB; load average "
          f"{os.getloadavg()[0]:.2f}", file=sys.stderr)
    r = bench_corpus(repo, home, args.rounds, args.cli_runs, queries)
    print("| repository | files | MB | p50 ms | p95 ms | --files -k 50 p50/p95 ms "
          "| refresh+search p50 ms | CLI median s | CLI --no-refresh s | `genesis --help` s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {repo.name} | {n} | {size / 1e6:.1f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} "
          f"| {r['files_p50_ms']:.1f} / {r['files_p95_ms']:.1f} | {r['refresh_p50_ms']:.1f} "
          f"| {r['cli_median_s']:.3f} | {r['cli_no_refresh_median_s']:.3f} "
          f"| {r['cli_help_s']:.3f} |")
    print(f"load average {os.getloadavg()[0]:.2f} at the end", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
