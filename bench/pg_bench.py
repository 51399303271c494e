"""The PostgreSQL mirror: mirroring speed and reading the organisation's stories.

Uses a private PostgreSQL from the ``pgserver`` package (or the server at
``GENESIS_TEST_PG_URL``), like the tests.  Cases:

1. ``genesis ledger mirror`` of a ledger of 10,000 records (1,000 stories ×
   10 records: the story, a title, 4 notes, a commit link and its 3 changed
   files) into an empty mirror, end to end through the console script
   (target ≤ 3 s); median of ``--runs`` runs, each into a fresh database;
2. the same again with nothing new (target ≤ 0.5 s);
3. ``genesis story context STORY-n --org --json`` on a mirror of 50
   repositories × 1,000 stories (each repository's stories overlap with those
   of its neighbours, so a story has records from up to 10 repositories),
   end to end (target ≤ 0.3 s), and the query alone in process.

    python bench/pg_bench.py [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from genesis_git.mirror import org  # noqa: E402
from genesis_git.mirror.connect import connect  # noqa: E402
from genesis_git.mirror.conninfo import Target  # noqa: E402
from genesis_git.mirror.push import push  # noqa: E402
from genesis_git.stories.ledger.gitref import append_records  # noqa: E402
from genesis_git.stories.ledger.records import Record  # noqa: E402

from pg_helpers import fresh_database, start_server  # noqa: E402

GENESIS = [sys.executable, "-m", "genesis_git"]


def story_records(story: str, n: int, who: tuple[str, str], at: str) -> list[Record]:
    """The 10 records of one story in one repository."""
    sha = f"{abs(hash((story, who))) % 16 ** 12:012x}" + "0" * 28
    new = Record.new

    def r(kind: str, **payload: Any) -> Record:
        return new(kind, story_id=story, author_name=who[0], author_email=who[1],
                   payload=payload, time=at)

    out = [r("story.created", title=f"story {n}", status="in_progress"),
           r("story.title", title=f"Story {n}: discount codes")]
    out += [r("artifact.added", role=role, content=f"{role} {i} of {story} by {who[0]}",
              path=f"src/mod{n % 50}.py")
            for i, role in enumerate(("requirement", "decision", "risk", "note"))]
    out.append(r("link.added", link_type="commit", target=sha,
                 description=f"{story}: change {n}",
                 meta={"author": who[0], "date": at, "subject": f"{story}: change {n}",
                       "committed": n}))
    out += [r("artifact.added", role="doc_change", path=f"src/file{n}_{i}.py", doc_id=sha,
              change_type="updated", source_ref="commit") for i in range(3)]
    return out


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def make_repo(path: Path, origin: str, url: str, stories: list[int],
              who: tuple[str, str]) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "remote", "add", "origin", origin)
    (path / ".genesis.toml").write_text(f'[ledger]\nmirror = "{url}"\n')
    recs: list[Record] = []
    for n in stories:
        recs += story_records(f"STORY-{n}", n, who, f"2026-11-{1 + n % 28:02d}T10:00:00.000Z")
    append_records(path, recs)
    return path


CPU: list[float] = []  # CPU seconds (user + system) of each timed command, in order


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall seconds of one run of ``cmd``; its CPU seconds are appended to :data:`CPU`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr}")
    return took


def _cpu_of(runs: int) -> float:
    """The median CPU seconds of the last ``runs`` timed commands."""
    return statistics.median(CPU[-runs:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    # a killed benchmark still stops its server (the finally blocks run)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out: dict[str, Any] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                           "python": platform.python_version()}
    with start_server() as server, tempfile.TemporaryDirectory(prefix="genesis-pgb-") as tmp:
        base = Path(tmp)
        # -- 1 and 2: 10,000 records --------------------------------------------------
        first, again, first_cpu, again_cpu = [], [], [], []
        for run in range(args.runs):
            with fresh_database(server) as db:
                env = {**os.environ, "PGPASSWORD": db.password}
                root = make_repo(base / f"r{run}", "git@git.example.com:org/shop.git", db.url,
                                 list(range(1000)), ("Ann", "ann@example.com"))
                first.append(timed([*GENESIS, "ledger", "mirror"], root, env))
                first_cpu.append(_cpu_of(1))
                assert db.count("genesis_records") == 10_000
                again.append(timed([*GENESIS, "ledger", "mirror"], root, env))
                again_cpu.append(_cpu_of(1))
        out["load_before"] = os.getloadavg()[0]
        out["mirror_10k_cpu_s"] = statistics.median(first_cpu)
        out["mirror_again_cpu_s"] = statistics.median(again_cpu)
        out["mirror_10k_s"] = statistics.median(first)
        out["mirror_10k_runs"] = [round(x, 3) for x in first]
        out["mirror_again_s"] = statistics.median(again)
        out["mirror_again_runs"] = [round(x, 3) for x in again]

        # -- 3: 50 repositories x 1,000 stories --------------------------------------
        with fresh_database(server) as db:
            os.environ["PGPASSWORD"] = db.password
            env = {**os.environ}
            start = time.perf_counter()
            with connect(Target(db.url, "--url")) as conn:
                for r in range(50):
                    who = (f"Dev {r}", f"dev{r}@example.com")
                    recs: list[Record] = []
                    for n in range(r * 100, r * 100 + 1000):
                        recs += story_records(f"STORY-{n}", n, who,
                                              f"2026-11-{1 + (n + r) % 28:02d}T10:00:00.000Z")
                    push(conn, recs, f"git.example.com/org/repo{r:02d}", batch_size=10_000)
            out["org_fill_s"] = time.perf_counter() - start
            out["org_rows"] = {t: db.count(t) for t in ("genesis_records", "story_records",
                                                         "story_artifacts", "story_links")}
            reader = make_repo(base / "reader", "git@git.example.com:org/reader.git", db.url,
                               [], ("R", "r@example.com"))
            story = "STORY-2500"  # in 10 repositories
            cli = [timed([*GENESIS, "story", "context", story, "--org", "--json"], reader, env)
                   for _ in range(args.runs)]
            out["org_context_cpu_s"] = _cpu_of(args.runs)
            listing = [timed([*GENESIS, "story", "list", "--org", "--json"], reader, env)
                       for _ in range(max(1, args.runs // 2))]
            with connect(Target(db.url, "--url"), migrate=False) as conn:
                inproc = []
                for _ in range(args.runs * 4):
                    t = time.perf_counter()
                    ctx = org.story_context(conn, story)
                    inproc.append(time.perf_counter() - t)
            out["org_context_projects"] = len(ctx["story"]["projects"])
            out["org_context_items"] = (len(ctx["commits"]) + len(ctx["files"]) +
                                        sum(len(v) for v in ctx["artifacts"].values()))
            out["org_context_cli_s"] = statistics.median(cli)
            out["org_context_query_ms"] = statistics.median(inproc) * 1000
            out["org_list_cli_s"] = statistics.median(listing)
            out["genesis_help_s"] = statistics.median(
                timed([*GENESIS, "--version"], reader, env) for _ in range(args.runs))
            out["genesis_help_cpu_s"] = _cpu_of(args.runs)
            out["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"machine: {out['machine']}, Python {out['python']}, load average "
          f"{out['load_before']:.1f} after the first cases, {out['load_after']:.1f} at the end")
    print(f"ledger mirror, 10,000 records, empty mirror: {out['mirror_10k_s']:.2f} s "
          f"(CPU {out['mirror_10k_cpu_s']:.2f} s; runs {out['mirror_10k_runs']}; target 3 s)")
    print(f"ledger mirror again, nothing new:            {out['mirror_again_s']:.2f} s "
          f"(CPU {out['mirror_again_cpu_s']:.2f} s; runs {out['mirror_again_runs']}; "
          "target 0.5 s)")
    print(f"50 repositories x 1,000 stories filled in {out['org_fill_s']:.1f} s: "
          f"{out['org_rows']}")
    print(f"story context --org --json ({out['org_context_projects']} projects, "
          f"{out['org_context_items']} items): {out['org_context_cli_s']:.3f} s end to end, "
          f"(CPU {out['org_context_cpu_s']:.3f} s), "
          f"{out['org_context_query_ms']:.1f} ms the queries (target 0.3 s)")
    print(f"story list --org --json (all stories): {out['org_list_cli_s']:.3f} s; "
          f"genesis --version: {out['genesis_help_s']:.3f} s (CPU "
          f"{out['genesis_help_cpu_s']:.3f} s)")


if __name__ == "__main__":
    main()
