"""Speed and memory of ``genesis mcp`` on the standard-library corpus, with the CLI beside it.

Through the real stdio server (the ``genesis`` console script, byte-compiled
as ``pip install`` leaves it), driven by a plain newline-delimited JSON-RPC
client so that the figures are the server's, not a client library's:

* start-up: process start to the ``initialize`` answer;
* the first call of a fresh server (a session already indexed, its impact
  facts prepared by an earlier server: the store, the search base and the
  impact corpus are loaded cold), for search and for impact;
* warm calls: ``search`` over the 50 queries of ``search_bench.py`` ×
  ``--rounds``, ``impact`` over 12 requirements × 2, as tool-call round trips:
  p50 and p95; the search's first round apart too (each query once: the server keeps
  the chunk texts it read, so a repeated query reads none);
* the CPU of a warm call, the server's and its git's (other work on the machine moves
  it far less than wall time);
* a 100 KB query (a pasted log) through both tools;
* the server's resident memory after 100 calls (and its peak);
* calls on one repository while another repository's first index runs in the same
  server (a fresh repository of generated files, its call carrying a progress token):
  their p50 and worst, the first index's length and its progress notifications;
* the CLI: ``genesis search --json`` and ``genesis impact --json``, medians.

    python bench/mcp_bench.py [--data /tmp/genesis-bench] [--rounds 3]
    python bench/mcp_bench.py --repo ~/src/sympy --queries bench/sympy_queries.txt \
        --requirements bench/sympy_requirements.txt

``--repo`` measures a repository of your own instead of the standard-library corpus
(its session is started first if it has none; ``GENESIS_HOME`` is kept if set),
with the search queries and requirements of ``--queries`` / ``--requirements`` (one
a line); ``--fresh-files 0`` leaves out the calls beside a first index.

Targets (2 cores, a sympy-sized tree): search p50 <= 20 ms and p95 <= 50 ms; impact
p50 <= 150 ms; the CLI's search median <= 0.3 s and impact median <= 1.5 s; the
first call of a fresh server <= 1 s; a search on one repository while another's
first index runs <= 1 s (it no longer waits for that index).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import build_stdlib_corpus, compile_genesis, corpus_stats  # noqa: E402
from search_bench import QUERIES, pct  # noqa: E402

GENESIS = str(Path(sys.executable).parent / "genesis")

REQUIREMENTS = [
    "add a timeout argument to subprocess.run", "json decoder error message shows the line",
    "argparse: allow abbreviations of long options to be turned off",
    "logging handler that rotates files by size", "zipfile: extract all members safely",
    "thread pool executor shutdown cancels pending futures",
    "http client connection keeps alive", "sqlite3 connection context manager commits",
    "temporary directory cleanup ignores errors", "csv reader handles quoted newlines",
    "日志 配置 文件", "数据库 连接 sqlite 超时",
]


class Server:
    """``genesis mcp`` as a subprocess, spoken to in newline-delimited JSON-RPC."""

    def __init__(self, cwd: Path):
        self.errors = tempfile.TemporaryFile()  # its one line, shown if it ends early
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([GENESIS, "mcp"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errors)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        self.early: dict[Any, dict[str, Any]] = {}  # answers to requests not waited for yet
        self.notes: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")  # the server closed its stdout: it has ended

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def start(self, method: str, params: dict[str, Any] | None = None) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        return self.next_id

    def wait(self, request_id: int) -> dict[str, Any]:
        while request_id not in self.early:
            line = self.lines.get(timeout=600)
            if not line:
                self.errors.seek(0)
                raise SystemExit(f"genesis mcp ended: {self.errors.read().decode().strip()}")
            message = json.loads(line)
            if "id" in message:
                self.early[message["id"]] = message
            else:
                self.notes.append(message)
        return self.early.pop(request_id)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.wait(self.start(method, params))

    def call(self, name: str, arguments: dict[str, Any]) -> float:
        t0 = time.perf_counter()
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        elapsed = time.perf_counter() - t0
        result = reply.get("result", {})
        if "error" in reply or result.get("isError"):
            raise SystemExit(f"{name} failed: {reply}")
        return elapsed

    def initialize(self) -> float:
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return time.perf_counter() - self.started

    def memory_mb(self) -> tuple[float, float]:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)

    def cpu_s(self) -> tuple[float, float]:
        """CPU seconds (user + system) of the server so far, and of the processes it waited
        for (git): figures that other work on the machine moves far less than wall time."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return ((int(fields[11]) + int(fields[12])) / tick,
                (int(fields[13]) + int(fields[14])) / tick)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


TARGETS = {"search_p50_ms": 20.0, "search_p95_ms": 50.0, "impact_p50_ms": 150.0,
           "cli_search_s": 0.3, "cli_impact_s": 1.5}


def cli_median(cwd: Path, command: list[str], texts: list[str], runs: int) -> float:
    """The median wall time of ``runs`` runs of the console script, one text after another."""
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        done = subprocess.run([GENESIS, *command, "--", texts[i % len(texts)]], cwd=cwd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        if done.returncode not in (0, 1):  # 1: a search that found nothing
            raise SystemExit(f"genesis {' '.join(command)} failed ({done.returncode})")
    return statistics.median(times)


def lines_of(path: Path | None, default: list[str]) -> list[str]:
    if path is None:
        return default
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def met(value: float, key: str) -> str:
    return "met" if value <= TARGETS[key] else "**not met**"


def generated_repository(path: Path, files: int) -> Path:
    """A fresh repository of ``files`` generated modules: nothing of it is in any cache."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    stamp = time.time_ns()
    for n in range(files):
        body = "\n".join(f"def handler_{n}_{i}(request_{stamp}):\n"
                         f"    return 'reply {n} {i} {stamp}'\n" for i in range(20))
        (path / f"module_{n:05}.py").write_text(body)
    return path


def beside_a_first_index(server: Server, warm: Path, data: Path, files: int) -> dict[str, Any]:
    """Searches on ``warm`` while a fresh repository's first index runs in ``server``."""
    fresh = generated_repository(data / "first-index", files)
    t0 = time.perf_counter()
    slow = server.start("tools/call", {"name": "search", "_meta": {"progressToken": "first"},
                                       "arguments": {"query": "handler reply",
                                                     "repo": str(fresh)}})
    times: list[float] = []
    while slow not in server.early:
        times.append(server.call("search", {"query": QUERIES[len(times) % len(QUERIES)],
                                            "repo": str(warm)}))
    server.wait(slow)
    progress = [n for n in server.notes if n.get("method") == "notifications/progress"]
    return {"beside_index_s": time.perf_counter() - t0, "beside_calls": len(times),
            "beside_p50_ms": pct(times, 0.5) * 1000 if times else 0.0,
            "beside_max_ms": max(times) * 1000 if times else 0.0,
            "beside_progress": len(progress)}


def pasted_log() -> str:
    import sysconfig

    base = Path(sysconfig.get_paths()["stdlib"])
    text = "".join((base / f).read_text() for f in ("argparse.py", "subprocess.py"))
    return ("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n"
            + text)[:100_000]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/genesis-bench"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=9)
    parser.add_argument("--fresh-files", type=int, default=1500,
                        help="files of the repository whose first index runs beside the calls "
                             "(0: leave that part out)")
    parser.add_argument("--repo", type=Path, default=None,
                        help="measure this repository instead of the standard-library corpus")
    parser.add_argument("--queries", type=Path, default=None,
                        help="search queries, one a line (default: search_bench's 50)")
    parser.add_argument("--requirements", type=Path, default=None,
                        help="impact requirements, one a line (default: 12 for the stdlib)")
    args = parser.parse_args(argv)
    compile_genesis()
    queries = lines_of(args.queries, QUERIES)
    requirements = lines_of(args.requirements, REQUIREMENTS)
    if args.repo is not None:
        repo = args.repo.resolve()
        os.environ.setdefault("GENESIS_HOME", str(args.data / "home-mcp"))
    else:
        repo = build_stdlib_corpus(args.data / "stdlib-1", 1)
        os.environ["GENESIS_HOME"] = str(args.data / "home-mcp")
    os.environ["GENESIS_SEARCH_PREBUILD_CHUNKS"] = "0"
    files, size = corpus_stats(repo)
    print(f"corpus: {repo.name}, {files} files, {size / 1e6:.1f} MB; "
          f"load average {os.getloadavg()[0]:.2f}")
    subprocess.run([GENESIS, "session", "start"], cwd=repo, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([GENESIS, "search", "warm up"], cwd=repo, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # saves the search base

    out: dict[str, Any] = {}
    warm = Server(repo)  # the first server prepares what impact reads (a one-time cost)
    warm.initialize()
    out["first_impact_of_store_s"] = warm.call("impact", {"requirement": requirements[0]})
    warm.close()
    server = Server(repo)  # a fresh server on a session already indexed and prepared
    out["startup_s"] = server.initialize()
    out["first_search_s"] = server.call("search", {"query": "parse command line arguments"})
    out["first_impact_s"] = server.call("impact", {"requirement": requirements[1 % len(requirements)]})
    calls = 2
    search_t: list[float] = []
    impact_t: list[float] = []

    def count() -> None:
        nonlocal calls
        calls += 1
        if calls == 100:
            out["rss_mb"], out["peak_mb"] = server.memory_mb()

    cpu0 = server.cpu_s()
    for _ in range(args.rounds):
        for q in queries:
            search_t.append(server.call("search", {"query": q}))
            count()
    first_round = search_t[:len(queries)]  # each query once: no text read by the same query
    cpu1 = server.cpu_s()
    for _ in range(2):
        for r in requirements:
            impact_t.append(server.call("impact", {"requirement": r}))
            count()
    cpu2 = server.cpu_s()
    out["search_cpu_ms"] = (cpu1[0] - cpu0[0]) / len(search_t) * 1000
    out["search_git_cpu_ms"] = (cpu1[1] - cpu0[1]) / len(search_t) * 1000
    out["impact_cpu_ms"] = (cpu2[0] - cpu1[0]) / len(impact_t) * 1000
    out["impact_git_cpu_ms"] = (cpu2[1] - cpu1[1]) / len(impact_t) * 1000
    while calls < 100:
        search_t.append(server.call("search", {"query": queries[calls % len(queries)]}))
        count()
    out["calls"] = calls
    out["rss_end_mb"], out["peak_end_mb"] = server.memory_mb()
    log = pasted_log()
    out["huge_search_s"] = server.call("search", {"query": log})
    out["huge_impact_s"] = server.call("impact", {"requirement": log})
    if args.fresh_files > 0:
        out.update(beside_a_first_index(server, repo, args.data, args.fresh_files))
    server.close()
    out["search_p50_ms"] = pct(search_t, 0.5) * 1000
    out["search_p95_ms"] = pct(search_t, 0.95) * 1000
    out["search_first_p50_ms"] = pct(first_round, 0.5) * 1000
    out["search_first_p95_ms"] = pct(first_round, 0.95) * 1000
    out["impact_p50_ms"] = pct(impact_t, 0.5) * 1000
    out["impact_p95_ms"] = pct(impact_t, 0.95) * 1000
    out["cli_search_s"] = cli_median(repo, ["search", "--json"], queries, args.cli_runs)
    out["cli_impact_s"] = cli_median(repo, ["impact", "--json"], requirements,
                                     max(3, args.cli_runs // 3))
    out["load_end"] = os.getloadavg()[0]
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()},
                     indent=2))
    print()
    print("| measure | `genesis mcp` | CLI (median) | target |")
    print("|---|---|---|---|")
    print(f"| search p50 / p95 | {out['search_p50_ms']:.1f} / {out['search_p95_ms']:.1f} ms | "
          f"{out['cli_search_s']:.2f} s | ≤ 20 / 50 ms ({met(out['search_p50_ms'], 'search_p50_ms')}"
          f", {met(out['search_p95_ms'], 'search_p95_ms')}); CLI ≤ 0.3 s "
          f"({met(out['cli_search_s'], 'cli_search_s')}) |")
    print(f"| search p50 / p95, first round only (each query once) | "
          f"{out['search_first_p50_ms']:.1f} / {out['search_first_p95_ms']:.1f} ms | | |")
    print(f"| impact p50 / p95 | {out['impact_p50_ms']:.0f} / {out['impact_p95_ms']:.0f} ms | "
          f"{out['cli_impact_s']:.2f} s | p50 ≤ 150 ms ({met(out['impact_p50_ms'], 'impact_p50_ms')})"
          f"; CLI ≤ 1.5 s ({met(out['cli_impact_s'], 'cli_impact_s')}) |")
    print(f"| CPU of a warm call, the server / its git: search | {out['search_cpu_ms']:.1f} / "
          f"{out['search_git_cpu_ms']:.1f} ms | | |")
    print(f"| CPU of a warm call, the server / its git: impact | {out['impact_cpu_ms']:.0f} / "
          f"{out['impact_git_cpu_ms']:.0f} ms | | |")
    print(f"| first search / impact of a fresh server | {out['first_search_s']:.2f} / "
          f"{out['first_impact_s']:.2f} s | | ≤ 1 s |")
    print(f"| start-up to the initialize answer | {out['startup_s']:.2f} s | | |")
    print(f"| a 100 KB query: search / impact | {out['huge_search_s'] * 1000:.0f} / "
          f"{out['huge_impact_s'] * 1000:.0f} ms | | |")
    print(f"| resident memory after 100 calls (peak) | {out['rss_mb']:.0f} MB "
          f"({out['peak_mb']:.0f} MB) | | |")
    print(f"| the first impact on a store never prepared | "
          f"{out['first_impact_of_store_s']:.2f} s | | |")
    if args.fresh_files > 0:
        print(f"| search p50 / worst while another repository's first index runs "
              f"({args.fresh_files} files, {out['beside_index_s']:.1f} s, "
              f"{out['beside_progress']} progress notifications) | "
              f"{out['beside_p50_ms']:.0f} / {out['beside_max_ms']:.0f} ms "
              f"({out['beside_calls']} calls) | | ≤ 1 s |")
    print(f"\nload average {out['load_end']:.2f} at the end")
    return 0


# -- the symbol tool (python bench/mcp_bench.py --symbols REPO [--rounds 3]) -------------------

SYMBOL_FILES = 40  # files whose outlines give the names looked up


def symbols_bench(repo: Path, rounds: int) -> dict[str, Any]:
    """``symbols`` through the real stdio server on any repository with a session: the first
    lookup (the definitions read), then warm lookups of names its outlines give, p50 / p95;
    outlines; ``refs=true`` (a whole-word scan of the session's files)."""
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout.split()
    step = max(1, len(listed) // SYMBOL_FILES)
    files = listed[::step][:SYMBOL_FILES]
    server = Server(repo)
    server.initialize()
    out: dict[str, Any] = {"first_symbols_s": server.call("symbols", {"name": "main"})}
    names: list[str] = []
    outline_t: list[float] = []
    for path in files:
        t0 = time.perf_counter()
        reply = server.request("tools/call", {"name": "symbols",
                                              "arguments": {"outline": path}})
        outline_t.append(time.perf_counter() - t0)
        found = reply.get("result", {}).get("structuredContent", {}).get("definitions", [])
        names += [d["name"] for d in found[:3]]
    lookup_t = [server.call("symbols", {"name": n}) for _ in range(rounds) for n in names]
    # the same server's search over the same names: both wait for the same refresh (git)
    search_t = [server.call("search", {"query": n, "match": "fixed"}) for n in names[:20]]
    ranked_t = [server.call("search", {"query": n}) for n in names if len(n) > 3 and n.isascii()
                and n.replace("_", "").isalnum()]
    refs_t = [server.call("symbols", {"name": n, "refs": True}) for n in names[:10]]
    server.close()
    out.update(names=len(names), symbols_p50_ms=pct(lookup_t, 0.5) * 1000,
               symbols_p95_ms=pct(lookup_t, 0.95) * 1000,
               outline_p50_ms=pct(outline_t, 0.5) * 1000,
               refs_p50_ms=pct(refs_t, 0.5) * 1000, refs_p95_ms=pct(refs_t, 0.95) * 1000,
               fixed_p50_ms=pct(search_t, 0.5) * 1000, search_p50_ms=pct(ranked_t, 0.5) * 1000)
    return out


def symbols_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="the symbol tool of genesis mcp")
    parser.add_argument("--symbols", type=Path, required=True, metavar="REPO",
                        help="a repository with a session (genesis session start)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    compile_genesis()
    files, size = corpus_stats(args.symbols)
    print(f"corpus: {files} files, {size / 1e6:.1f} MB")
    out = symbols_bench(args.symbols, args.rounds)
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()},
                     indent=2))
    print(f"| symbols p50 / p95 | {out['symbols_p50_ms']:.1f} / {out['symbols_p95_ms']:.1f} ms "
          f"| ≤ 20 ms p50 |")
    return 0


if __name__ == "__main__":
    sys.exit(symbols_main(sys.argv[1:]) if "--symbols" in sys.argv else main())
