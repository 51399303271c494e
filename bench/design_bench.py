"""Design library benchmark: 2,000 synthetic chunks; index build, CLI and in-process query time.

Run with ``python bench/design_bench.py`` (not part of the tests).  It builds
a throw-away git repository in a temporary folder, fills its design library
with 400 synthetic cards (five sections each, so 2,000 chunks) and prints a
Markdown table of medians against the budgets of the design library:

- index build (chunks + BM25 index + files) ≤ 2 s;
- CLI query end to end (process start, index read, search, JSON out) ≤ 300 ms;
- in-process query on a loaded index ≤ 20 ms.

The zero-dependency reader ``query.mjs`` is timed too when ``node`` is on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from genesis_git.design.index import load_index, save_library
from genesis_git.design.ingest import Ingest
from genesis_git.design.library import CHUNKS, INDEX, open_library
from genesis_git.design.manage import init_library
from genesis_git.design.search import search_index

EN = ("card spacing margin padding radius corner font type line height contrast color palette "
      "surface dark light motion duration easing button target touch focus outline empty state "
      "list grid layout shadow elevation icon label title body headline dialog toast tab").split()
ZH = ("卡片 间距 留白 圆角 字号 行高 对比度 配色 主色 背景色 深色 浅色 动效 时长 按钮 热区 焦点 "
      "描边 空态 列表 栅格 布局 阴影 层级 图标 标题 正文 弹窗 提示 页签").split()
CATS = ("spacing", "radius", "type", "palette", "motion", "target")
UNITS = {"spacing": "vp", "radius": "vp", "type": "fp", "motion": "ms", "target": "vp"}
QUERIES = ["深色 卡片 间距", "圆角 20vp", "touch target 48vp button", "动效 时长 easing 240ms",
           "#121212 dark surface", "正文 字号 行高", "empty state list", "focus outline contrast"]


def _sentence(rng: random.Random, words: int) -> str:
    parts = [rng.choice(EN) if rng.random() < 0.6 else rng.choice(ZH) for _ in range(words)]
    return " ".join(parts) + "."


def synth_card(rng: random.Random, n: int) -> dict[str, Any]:
    tokens: dict[str, list[dict[str, Any]]] = {}
    for cat in rng.sample(CATS, 3):
        if cat == "palette":
            tokens[cat] = [{"name": "surface", "value": f"#{rng.randrange(16 ** 6):06X}"}]
        else:
            tokens[cat] = [{"name": f"{cat}-{i}", "value": rng.choice((4, 8, 12, 16, 20, 24, 48,
                                                                       200, 240, 300)),
                            "unit": UNITS[cat]} for i in range(3)]
    return {
        "title": f"Synthetic card {n} · " + " ".join(rng.sample(ZH, 2)),
        "summary": _sentence(rng, 25),
        "tags": rng.sample(EN, 3),
        "source": {"kind": "user", "ref": f"synthetic board {n}", "license": "CC0-1.0"},
        "tokens": tokens,
        "rationale": _sentence(rng, 45),
        "dos": [_sentence(rng, 10), _sentence(rng, 8)],
        "donts": [_sentence(rng, 10)],
        "images": [],
    }


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=400, help="synthetic cards (5 chunks each)")
    parser.add_argument("--runs", type=int, default=7, help="repetitions per measurement")
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="genesis-design-bench-"))
    try:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        env = {**os.environ, "GENESIS_DESIGN_MAX_CHUNKS": str(args.cards * 5)}
        os.environ.update(env)
        lib = open_library(root)
        init_library(lib)
        rng = random.Random(20261103)
        job = Ingest(lib, "bench")
        for n in range(1, args.cards + 1):
            job.offer(f"bench:{n}", f"{n:064x}", synth_card(rng, n), f"card {n}")
        job.finish()
        manifest = lib.load_manifest()
        chunks = manifest["counts"]["chunks"]

        builds = []
        for _ in range(args.runs):
            lib.path(INDEX).unlink()
            lib.path(CHUNKS).unlink()
            t0 = time.perf_counter()
            save_library(lib, manifest)
            builds.append(time.perf_counter() - t0)

        loads, queries = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            index = load_index(lib)
            loads.append(time.perf_counter() - t0)
        for q in QUERIES:
            search_index(index, q, 5)  # warm the synonym table
            for _ in range(args.runs):
                t0 = time.perf_counter()
                search_index(index, q, 5)
                queries.append(time.perf_counter() - t0)

        cli = []
        for q in QUERIES[:4]:
            for _ in range(max(3, args.runs // 2)):
                t0 = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "genesis_git", "design", "search",
                                       q, "--json"], cwd=root, capture_output=True, env=env)
                cli.append(time.perf_counter() - t0)
                assert proc.returncode in (0, 1), proc.stderr.decode()  # 1: no card found
        reader = []
        node = shutil.which("node")
        if node:
            for q in QUERIES[:4]:
                for _ in range(max(3, args.runs // 2)):
                    t0 = time.perf_counter()
                    proc = subprocess.run([node, str(lib.path("query.mjs")), q, "--json"],
                                          cwd=root, capture_output=True)
                    reader.append(time.perf_counter() - t0)
                    assert proc.returncode == 0, proc.stderr.decode()

        size = lib.path(INDEX).stat().st_size
        rows = [
            ("index build (chunks + BM25 + files)", _median_ms(builds), 2000.0),
            ("index read (json.loads + checks)", _median_ms(loads), None),
            ("in-process query (loaded index)", _median_ms(queries), 20.0),
            ("CLI query end to end (`genesis design search --json`)", _median_ms(cli), 300.0),
        ]
        if reader:
            rows.append(("reader end to end (`node query.mjs --json`)", _median_ms(reader), 300.0))
        print(f"design library benchmark: {manifest['counts']['cards']} cards, {chunks} chunks, "
              f"index.json {size / 1024:.0f} KiB, median of {args.runs} runs "
              f"(queries: {len(QUERIES)})\n")
        print("| measurement | median | budget | within |")
        print("| --- | ---: | ---: | --- |")
        failed = False
        for name, ms, budget in rows:
            within = "—" if budget is None else ("yes" if ms <= budget else "NO")
            failed |= within == "NO"
            shown = "—" if budget is None else f"{budget:.0f} ms"
            print(f"| {name} | {ms:.1f} ms | {shown} | {within} |")
        print()
        print(json.dumps({"chunks": chunks, "build_ms": round(_median_ms(builds), 1),
                          "query_ms": round(_median_ms(queries), 2),
                          "cli_ms": round(_median_ms(cli), 1)}))
        return 1 if failed else 0
    finally:
        if args.keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
