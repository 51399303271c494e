"""Retrieval quality: rank the files a commit changed, given its message.

For every case of the development sets (JSON lines with ``repo``, ``parent``,
``query``, ``gold``; see the sets' README), this script

1. clones the repository once with full history (``--source owner/name=URL``;
   the default URL is GitHub's), outside this project;
2. per case, makes a scratch clone that holds exactly the history of
   ``parent`` (``clone --no-local --no-checkout``, detached checkout, remote,
   refs and reflog removed, ``gc --prune=now``) and checks that ``commit`` is
   absent.  A copy that lacks a few large blobs makes ``upload-pack`` refuse
   the clone; then the object files are copied (``--no-hardlinks``) and only
   what ``HEAD`` reaches is repacked, which ends in the same state (missing
   files show as deleted and are skipped);
3. runs the real console script there, offline, on the query only:
   ``genesis search --files --json -k 50 QUERY`` (``--mode search``) or
   ``genesis impact --json -k 50 QUERY`` (``--mode impact``, ranked by its
   ``files`` list), with ``GENESIS_HOME`` shared by the cases of one
   repository (the cache is keyed by blob content);
4. scores Acc@1, Acc@5 and Acc@10 (a gold file in the top k), recall@5,
   recall@10 and MRR against ``gold`` and prints them next to the published
   baselines.

``--ablate SIGNAL`` (impact mode, repeatable) runs the same console script
with one of impact's signals switched off (``lexical``, ``path``,
``symbols``, ``graph``, ``history``, ``cochange``, ``feedback``,
``traceback``, ``prior``, ``bridge``), so that a table says what each signal adds.
``--setting SECTION.KEY=VALUE`` (repeatable) sets one of genesis's settings for
every run, through its ``GENESIS_SECTION_KEY`` variable: ``--setting
embed.dim=512`` measures the hashing embedder at another dimension, ``--setting
embed.provider=openai --setting embed.base_url=URL`` an endpoint's embeddings.
``--home DIR`` keeps the blob cache between runs (the cache is keyed by
blob content, so runs of different code may share it only when the index
did not change).

The retriever never sees ``commit``, ``gold`` or ``meta``.

    python bench/localize.py CASES.jsonl [...] [--data DIR] [--mode search|impact]
        [--search-mode hybrid|lexical|vector] [--limit N] [--ablate SIGNAL] [--home DIR]
        [--setting SECTION.KEY=VALUE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

GENESIS = [str(Path(sys.executable).parent / "genesis")]

# Published baselines of the development sets (R@5, R@10, MRR).
BASELINES: dict[str, list[tuple[str, float, float, float]]] = {
    "pallets/click": [("bm25", 0.482, 0.614, 0.491), ("bm25path", 0.214, 0.228, 0.295),
                      ("grep", 0.503, 0.623, 0.493), ("hot", 0.344, 0.432, 0.386)],
    "chatchat-space/Langchain-Chatchat": [
        ("bm25", 0.402, 0.645, 0.435), ("bm25path", 0.444, 0.473, 0.466),
        ("grep", 0.380, 0.585, 0.308), ("hot", 0.269, 0.453, 0.278)],
}


def git(*args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return subprocess.run(["git", *args], cwd=cwd, check=check, text=True, capture_output=True,
                          env=env)


def prepare_full(repo: str, source: str, data: Path) -> Path:
    """A full-history clone of ``repo`` under ``data`` (made once)."""
    full = data / (repo.replace("/", "+") + "-full")
    if not (full / "HEAD").exists():
        tmp = full.with_name(full.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        git("clone", "--quiet", "--bare", source, str(tmp))
        tmp.rename(full)
    return full


def prepare_case(full: Path, case: dict[str, Any], dest: Path, reuse: bool = False) -> Path:
    """A scratch clone at ``case["parent"]`` whose history ends there (the sets' README).

    With ``reuse``, a clone already at ``dest`` whose HEAD is the parent and
    which lacks ``commit`` is kept as it is.
    """
    if reuse and (dest / ".git").is_dir():
        head = git("rev-parse", "HEAD", cwd=dest, check=False).stdout.strip()
        leaked = git("cat-file", "-e", case["commit"], cwd=dest, check=False).returncode == 0
        if head == case["parent"] and not leaked:
            return dest
    shutil.rmtree(dest, ignore_errors=True)
    cloned = git("clone", "--quiet", "--no-local", "--no-checkout", str(full), str(dest),
                 check=False).returncode == 0
    if not cloned:
        # A copy that lacks a few large blobs makes upload-pack refuse the clone;
        # copy the object files instead and repack what is reachable below.
        shutil.rmtree(dest, ignore_errors=True)
        git("clone", "--quiet", "--no-hardlinks", "--no-checkout", str(full), str(dest))
    git("checkout", "--quiet", "--detach", case["parent"], cwd=dest, check=cloned)
    git("remote", "remove", "origin", cwd=dest)
    refs = git("for-each-ref", "--format=delete %(refname)", cwd=dest).stdout
    if refs.strip():
        subprocess.run(["git", "update-ref", "--stdin"], cwd=dest, input=refs, text=True,
                       check=True, capture_output=True)
    git("reflog", "expire", "--expire=now", "--all", cwd=dest)
    if cloned:
        git("gc", "--quiet", "--prune=now", cwd=dest)
    else:
        _repack_reachable(dest)
    if git("cat-file", "-e", case["commit"], cwd=dest, check=False).returncode == 0:
        raise RuntimeError(f"LEAK: {case['commit']} still present in {dest}")
    return dest


def _repack_reachable(dest: Path) -> None:
    """``gc --prune=now`` for a repository with missing blobs: keep only what HEAD reaches."""
    pack_dir = dest / ".git" / "objects" / "pack"
    old = list(pack_dir.iterdir())
    objects = git("rev-list", "--objects", "--missing=allow-any", "HEAD", cwd=dest).stdout
    subprocess.run(["git", "pack-objects", "--quiet", "--missing=allow-any",
                    str(pack_dir / "tmp")], cwd=dest, input=objects, text=True, check=True,
                   capture_output=True)
    for f in old:
        f.unlink()
    for f in pack_dir.glob("tmp-*"):
        f.rename(f.with_name("pack-" + f.name[len("tmp-"):]))
    git("prune", "--expire=now", cwd=dest)


def run_search(scratch: Path, query: str, home: Path, *, k: int = 50,
               search_mode: str | None = None, env: dict[str, str] | None = None) -> list[str]:
    """Files ranked by ``genesis search --files --json``."""
    cmd = [*GENESIS, "search", "--files", "--json", "-k", str(k)]
    if search_mode:
        cmd += ["--mode", search_mode]
    out = _run(cmd + ["--", query], scratch, home, env)
    return _unique([r["path"] for r in out.get("results", [])])


def run_impact(scratch: Path, query: str, home: Path, *, k: int = 50,
               ablate: Sequence[str] = (), env: dict[str, str] | None = None) -> list[str]:
    """Files ranked by ``genesis impact --json`` (its ``files`` list)."""
    cmd = GENESIS if not ablate else [sys.executable, str(Path(__file__).resolve()), "--genesis",
                                      ",".join(ablate)]
    out = _run([*cmd, "impact", "--json", "-k", str(k), "--", query], scratch, home, env)
    files = out.get("files", [])
    return _unique([f if isinstance(f, str) else f.get("path", "") for f in files])


def _run(cmd: list[str], cwd: Path, home: Path,
         settings: dict[str, str] | None = None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GENESIS_"))}
    env.update(settings or {})
    env["GENESIS_HOME"] = str(home)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed ({proc.returncode}): {proc.stderr.strip()}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _unique(paths: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for p in paths:
        if p:
            seen.setdefault(p, None)
    return list(seen)


def score(ranked: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """Acc@1/5/10 (a gold file in the top k), recall@5, recall@10 and reciprocal rank of one
    case (the sets' README)."""
    gold_set = set(gold)
    if not gold_set:
        return {"a1": 0.0, "a5": 0.0, "a10": 0.0, "r5": 0.0, "r10": 0.0, "rr": 0.0}
    ranked = _unique(ranked)
    rr = next((1.0 / i for i, p in enumerate(ranked, start=1) if p in gold_set), 0.0)
    return {"a1": float(bool(gold_set & set(ranked[:1]))),
            "a5": float(bool(gold_set & set(ranked[:5]))),
            "a10": float(bool(gold_set & set(ranked[:10]))),
            "r5": len(gold_set & set(ranked[:5])) / len(gold_set),
            "r10": len(gold_set & set(ranked[:10])) / len(gold_set), "rr": rr}


METRICS = ("a1", "a5", "a10", "r5", "r10")


def ablation_rankings(scratch: Path, query: str, home: Path, variants: Sequence[str],
                      k: int = 50) -> dict[str, list[str]]:
    """The files ``genesis impact`` ranks with every signal and with each of ``variants``
    switched off, in this process: the session, its corpus and its history are read once,
    then ranked once per variant (the same code path as the console script's)."""
    os.environ["GENESIS_HOME"] = str(home)
    from genesis_git.impact.corpus_session import load_context_corpus
    from genesis_git.impact.pipeline import ImpactOptions, run
    from genesis_git.index.session import ensure_session, open_context

    ctx = open_context(scratch)
    try:
        sid = ensure_session(ctx, refresh=True)
        corpus = load_context_corpus(ctx, sid)
        corpus.keep = True
        out: dict[str, list[str]] = {}
        for v in ("all", *variants):
            off = frozenset() if v == "all" else frozenset({v})
            res = run(ctx, query, ImpactOptions(k=k, ablate=off, rag=False), session_id=sid,
                      corpus=corpus)
            out[v] = _unique([f.path for f in res.files])
        return out
    finally:
        ctx.conn.close()


def ablation_table(cases: list[dict[str, Any]], full: Path, data: Path, home: Path,
                   variants: Sequence[str], log: Any = None, start: int = 0
                   ) -> dict[str, dict[str, float]]:
    """Acc@1/5/10, R@5, R@10 and MRR of impact with each of ``variants`` switched off
    (``start``: the index of the first case in its set, which names its scratch clone)."""
    scores: dict[str, list[dict[str, float]]] = {}
    for i, case in enumerate(cases, start):
        where = data / "scratch" / f"{case['repo'].replace('/', '+')}-{i:03d}"
        scratch = prepare_case(full, case, where, reuse=True)
        ranked = ablation_rankings(scratch, case["query"], home, variants)
        for v, files in ranked.items():
            scores.setdefault(v, []).append(score(files, case["gold"]))
        if log:
            log(f"[{i + 1}/{start + len(cases)}] ablations")
    return {v: {**{m: sum(c[m] for c in s) / len(s) for m in METRICS},
                "mrr": sum(c["rr"] for c in s) / len(s), "cases": len(s)}
            for v, s in scores.items()}


def evaluate(cases: list[dict[str, Any]], full: Path, data: Path, home: Path, mode: str,
             search_mode: str | None, log: Any = None, keep: bool = False,
             ablate: Sequence[str] = (), env: dict[str, str] | None = None) -> dict[str, Any]:
    per_case = []
    seconds = []
    for i, case in enumerate(cases):
        where = data / "scratch" / (f"{case['repo'].replace('/', '+')}-{i:03d}" if keep else "one")
        scratch = prepare_case(full, case, where, reuse=keep)
        t0 = time.perf_counter()
        if mode == "impact":
            ranked = run_impact(scratch, case["query"], home, ablate=ablate, env=env)
        else:
            ranked = run_search(scratch, case["query"], home, search_mode=search_mode, env=env)
        seconds.append(time.perf_counter() - t0)
        s = score(ranked, case["gold"])
        per_case.append({**s, "parent": case["parent"], "gold": case["gold"],
                         "top": ranked[:10]})
        if log:
            log(f"[{i + 1}/{len(cases)}] r@10 {s['r10']:.2f} rr {s['rr']:.2f} "
                f"{seconds[-1]:.1f}s  {case['query'].splitlines()[0][:60]}")
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    n = len(per_case)
    return {
        "cases": n,
        "avg_gold": statistics.mean(len(c["gold"]) for c in cases) if cases else 0.0,
        **{m: sum(c[m] for c in per_case) / n if n else 0.0 for m in METRICS},
        "mrr": sum(c["rr"] for c in per_case) / n if n else 0.0,
        "s_case": statistics.mean(seconds) if seconds else 0.0,
        "per_case": per_case,
    }


def print_ablations(title: str, table_: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}: impact without one signal\n")
    print("| variant | Acc@1 | Acc@5 | Acc@10 | R@5 | R@10 | MRR |\n|---|---|---|---|---|---|---|")
    for v, r in table_.items():
        name = "all signals" if v == "all" else f"without {v}"
        print(f"| {name} | {r['a1']:.3f} | {r['a5']:.3f} | {r['a10']:.3f} | {r['r5']:.3f} "
              f"| {r['r10']:.3f} | {r['mrr']:.3f} |")


def pooled_ablations(results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The ablation tables of several repositories as one, every case counted once."""
    n = sum(r["cases"] for r in results) or 1
    return {v: {**{m: sum(r["ablations"][v][m] * r["cases"] for r in results) / n
                   for m in (*METRICS, "mrr")}, "cases": n}
            for v in results[0]["ablations"]}


def pooled(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of several repositories' results, every case counted once."""
    if results and all("ablations" in r for r in results):
        table_ = pooled_ablations(results)
        return {"cases": sum(r["cases"] for r in results), "avg_gold": 0.0, "s_case": 0.0,
                **table_["all"], "per_case": [], "ablations": table_}
    cases = [c for r in results for c in r["per_case"]]
    n = len(cases) or 1
    return {"cases": len(cases),
            "avg_gold": sum(r["avg_gold"] * r["cases"] for r in results) / n,
            **{m: sum(c[m] for c in cases) / n for m in METRICS},
            "mrr": sum(c["rr"] for c in cases) / n,
            "s_case": sum(r["s_case"] * r["cases"] for r in results) / n, "per_case": cases}


def table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    lines = ["| set | cases | avg gold | method | Acc@1 | Acc@5 | Acc@10 | R@5 | R@10 | MRR "
             "| s/case |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for repo, label, r in rows:
        lines.append(f"| {repo} | {r['cases']} | {r['avg_gold']:.2f} | **{label}** | "
                     f"{r['a1']:.3f} | {r['a5']:.3f} | {r['a10']:.3f} | "
                     f"{r['r5']:.3f} | {r['r10']:.3f} | {r['mrr']:.3f} | {r['s_case']:.2f} |")
        for name, r5, r10, mrr in BASELINES.get(repo, []):
            lines.append(f"| | | | {name} | | | | {r5:.3f} | {r10:.3f} | {mrr:.3f} | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", type=Path, help="JSON-lines case files")
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "genesis-localize",
                    help="where the full clones and scratch clones go")
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=URL",
                    help="where to clone a repository from (default: GitHub)")
    ap.add_argument("--mode", choices=("search", "impact"), default="search")
    ap.add_argument("--search-mode", choices=("hybrid", "lexical", "vector"), default=None)
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases of each file")
    ap.add_argument("--json-out", type=Path, help="write per-case results here")
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch clones under DATA/scratch and reuse them next time")
    ap.add_argument("--ablate", action="append", default=[], choices=ABLATABLE,
                    help="impact mode: switch this signal off (repeatable)")
    ap.add_argument("--ablations", action="store_true",
                    help="impact mode: a table of every signal switched off in turn (in "
                         "process, on the kept scratch clones)")
    ap.add_argument("--offset", type=int, default=0,
                    help="with --ablations: leave out the first N cases of each repository")
    ap.add_argument("--home", type=Path,
                    help="the GENESIS_HOME of the runs, kept (default: a fresh one per set)")
    ap.add_argument("--setting", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="set one of genesis's settings for every run (repeatable), e.g. "
                         "embed.dim=512")
    args = ap.parse_args(argv)
    sources = dict(s.split("=", 1) for s in args.source)
    try:
        args.env = setting_env(args.setting)
    except ValueError as exc:
        ap.error(str(exc))
    args.data.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str, dict[str, Any]]] = []
    details: dict[str, Any] = {}
    for path in args.cases:
        cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        if args.limit:
            cases = cases[:args.limit]
        repos = list(dict.fromkeys(c["repo"] for c in cases))  # a set may mix repositories
        for repo in repos:
            mine = [c for c in cases if c["repo"] == repo]
            rows.append(_evaluate_repo(repo, mine, args, sources))
            details[repo] = rows[-1][2]
        if len(repos) > 1:  # the set as a whole: every case counts once
            rows.append((f"{path.stem} (all)", rows[-1][1], pooled([r for _, _, r in
                                                                    rows[-len(repos):]])))
            if args.ablations:
                print_ablations(f"{path.stem}, all {rows[-1][2]['cases']} cases",
                                rows[-1][2]["ablations"])
    print(table(rows))
    if args.json_out:
        args.json_out.write_text(json.dumps(details, indent=1, ensure_ascii=False))
    return 0


def _evaluate_repo(repo: str, cases: list[dict[str, Any]], args: argparse.Namespace,
                   sources: dict[str, str]) -> tuple[str, str, dict[str, Any]]:
    """One repository's cases of a set."""
    full = prepare_full(repo, sources.get(repo, f"https://github.com/{repo}.git"), args.data)
    if args.home:
        home = args.home / repo.replace("/", "+")
        home.mkdir(parents=True, exist_ok=True)
    else:
        home = Path(tempfile.mkdtemp(prefix="home-", dir=args.data))
    label = f"genesis {args.mode}" + (f" ({args.search_mode})" if args.search_mode else "")
    if args.setting:
        label += " with " + ", ".join(args.setting)
    if args.ablate:
        label += " without " + ", ".join(args.ablate)
    print(f"{repo}: {len(cases)} cases", file=sys.stderr)
    if args.ablations:
        table_ = ablation_table(cases[args.offset:], full, args.data, home, ABLATABLE,
                                log=lambda m: print(m, file=sys.stderr), start=args.offset)
        cases = cases[args.offset:]
        print_ablations(f"{repo}, {len(cases)} cases", table_)
        return repo, "ablations", {"cases": len(cases), "avg_gold": 0.0, "s_case": 0.0,
                                   **table_["all"], "per_case": [], "ablations": table_}
    result = evaluate(cases, full, args.data, home, args.mode, args.search_mode,
                      log=lambda m: print(m, file=sys.stderr), keep=args.keep,
                      ablate=args.ablate, env=args.env)
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)
    return repo, label, result


def setting_env(settings: Sequence[str]) -> dict[str, str]:
    """The variables of ``SECTION.KEY=VALUE`` settings (``embed.dim=512``:
    ``GENESIS_EMBED_DIM``); a malformed one raises ``ValueError``."""
    env: dict[str, str] = {}
    for item in settings:
        name, sep, value = item.partition("=")
        section, dot, key = name.strip().partition(".")
        if not (sep and dot and section.isidentifier() and key.isidentifier()):
            raise ValueError(f"--setting {item!r}: expected SECTION.KEY=VALUE")
        env[f"GENESIS_{section}_{key}".upper()] = value
    return env


ABLATABLE = ("lexical", "path", "symbols", "graph", "history", "recent", "cochange",
             "feedback", "traceback", "prior", "bridge")


def genesis_ablated(signals: str, argv: list[str]) -> int:
    """The ``genesis`` console script with impact's ``signals`` (comma-separated) switched off."""
    from genesis_git.cli.main import run as genesis_main
    from genesis_git.impact import pipeline

    off = frozenset(signals.split(","))
    plain = pipeline.ImpactOptions.rank_options

    def rank_options(self: pipeline.ImpactOptions) -> Any:
        self.ablate = off
        return plain(self)

    pipeline.ImpactOptions.rank_options = rank_options  # type: ignore[method-assign]
    sys.argv = ["genesis", *argv]
    genesis_main()
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--genesis":
        sys.exit(genesis_ablated(sys.argv[2], sys.argv[3:]))
    sys.exit(main())
