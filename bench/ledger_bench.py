"""Speed of the shared story ledger: ``genesis sync`` and the rebuild of a fresh clone.

A ledger of 1,000 stories × 10 records (created, a title, two links, six
artifacts with Chinese and English text) is written into a clone and pushed to a
bare repository on disk (``file://``).  Then, end to end through the real CLI,
median of ``--runs`` runs:

* ``genesis sync`` with nothing new;
* ``genesis sync`` that pulls 100 new records (a teammate wrote 100 notes and
  pushed them), merged with one local record of its own;
* ``genesis init`` in a fresh clone: it fetches the ledger and builds the
  local view (the store's story tables) from the 10,000 records;
* the view's rebuild alone (in-process, the records already fetched);
* for scale, ``git fetch`` with nothing new and ``genesis --version``.

It also reports the size of the ledger's objects on the remote, loose as the
pushes left them and after ``git gc``, and the growth of the remote per sync: a
session holds ``--notes`` notes (2,000) already shared, then, ``--runs`` times, one
more note is written (``genesis session note``) and ``genesis sync`` pushes it; the
figure is the bytes the remote's object store gained by that sync (before ``git
gc``).  Target: at most 10 KB per sync, whatever the size of the ledger.

    python bench/ledger_bench.py [--runs 5] [--stories 1000] [--notes 2000] [--growth-only]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from genesis_git.stories.ledger import gitref as G  # noqa: E402
from genesis_git.stories.ledger import records as R  # noqa: E402
from genesis_git.stories.ledger.records import Record  # noqa: E402

GENESIS = [sys.executable, "-m", "genesis_git"]  # the code next to this file


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k != "GENESIS_HOME"}
    out["GENESIS_HOOKS_INDEX"] = "off"
    out["PYTHONPATH"] = str(ROOT)
    return out


def timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env(), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def story_records(n: int, who: str) -> list[Record]:
    out = []
    for i in range(n):
        sid = f"STORY-{i + 1}"
        base = {"author_name": who, "author_email": f"{who}@example.com"}
        out.append(Record.new("story.created", story_id=sid, **base,
                              payload={"title": f"订单 story {i}", "status": "in_progress"}))
        out.append(Record.new("story.title", story_id=sid, **base,
                              payload={"title": f"Discount codes for orders, part {i}"}))
        for k in range(2):
            sha = f"{i:020x}{k:020x}"
            out.append(Record.new("link.added", story_id=sid, **base,
                                  payload={"link_type": "commit", "target": sha,
                                           "description": f"{sid}: change {k}",
                                           "meta": {"subject": f"{sid}: change {k}"}}))
        for k, role in enumerate(("requirement", "decision", "risk", "analysis", "note",
                                  "test_model")):
            out.append(Record.new("artifact.added", story_id=sid, **base,
                                  payload={"role": role, "content": f"{role} {k}: 订单表新增字段 "
                                           f"discount_code must stay consistent ({i})",
                                           "path": f"app/module_{i % 50}.py",
                                           "source_ref": "s-bench", "note_id": R.new_id()}))
    return out


def clone(remote: Path, where: Path, who: str) -> Path:
    git(where.parent, "clone", "-q", f"file://{remote}", str(where))
    git(where, "config", "user.name", who)
    git(where, "config", "user.email", f"{who}@example.com")
    return where


def size_of(repo: Path) -> dict[str, int]:
    out = {}
    for line in git(repo, "count-objects", "-v").splitlines():
        key, _, value = line.partition(": ")
        out[key] = int(value)
    return out


def object_bytes(repo: Path) -> int:
    """Bytes of every file of a repository's object store (loose objects and packs)."""
    return sum(f.stat().st_size for f in (repo / "objects").rglob("*") if f.is_file())


def sync_growth(tmp: Path, notes: int, runs: int) -> list[int]:
    """Bytes the remote gains per ``genesis sync`` that pushes one note, with ``notes``
    notes of the same session already shared."""
    seed = tmp / "growth-seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    (seed / ".genesis.toml").write_text("[ledger]\nshare = true\n")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=s", "-c", "user.email=s@x", "commit", "-q", "-m", "init")
    remote = tmp / "growth.git"
    git(tmp, "clone", "-q", "--bare", str(seed), str(remote))
    where = clone(remote, tmp / "growth", "ana")
    run = [*GENESIS, "session", "note", "--role", "risk"]
    out = subprocess.run([*run, "first note", "--json"], cwd=where, env=env(), check=True,
                         capture_output=True, text=True).stdout
    import json

    session = json.loads(out)["session"]
    old = [Record.new("note.written", session_id=session, author_name="ana",
                      author_email="ana@example.com",
                      payload={"role": "risk", "content": f"note {i}: 订单表新增字段 "
                               f"discount_code must stay consistent with the orders table",
                               "path": f"app/module_{i % 50}.py", "section": f"Part {i % 7}"})
           for i in range(notes)]
    G.append_records(where, old)
    subprocess.run([*GENESIS, "sync"], cwd=where, env=env(), check=True,
                   stdout=subprocess.DEVNULL)
    grown = []
    for k in range(runs):
        subprocess.run([*run, f"one more note {k}"], cwd=where, env=env(), check=True,
                       stdout=subprocess.DEVNULL)
        before = object_bytes(remote)
        subprocess.run([*GENESIS, "sync"], cwd=where, env=env(), check=True,
                       stdout=subprocess.DEVNULL)
        grown.append(object_bytes(remote) - before)
    return grown


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--stories", type=int, default=1000)
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--growth-only", action="store_true",
                    help="measure only the remote's growth per sync")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="genesis-ledger-bench-"))
    try:
        grown = sync_growth(tmp, args.notes, args.runs)
        growth = (f"remote growth per `genesis sync` pushing 1 note, {args.notes:,} notes of "
                  f"the session already shared: median {statistics.median(grown):,.0f} bytes "
                  f"(range {min(grown):,}–{max(grown):,}; target ≤ 10,000)")
        if args.growth_only:
            print(growth)
            return
        seed = tmp / "seed"
        seed.mkdir()
        git(seed, "init", "-q", "-b", "main")
        (seed / ".genesis.toml").write_text("[ledger]\nshare = true\n")
        git(seed, "add", "-A")
        git(seed, "-c", "user.name=s", "-c", "user.email=s@x", "commit", "-q", "-m", "init")
        remote = tmp / "remote.git"
        git(tmp, "clone", "-q", "--bare", str(seed), str(remote))
        author = clone(remote, tmp / "author", "ana")
        subprocess.run([*GENESIS, "init"], cwd=author, env=env(), check=True,
                       stdout=subprocess.DEVNULL)
        recs = story_records(args.stories, "ana")
        t0 = time.perf_counter()
        G.append_records(author, recs)
        write_s = time.perf_counter() - t0
        subprocess.run([*GENESIS, "sync"], cwd=author, env=env(), check=True,
                       stdout=subprocess.DEVNULL)
        loose = size_of(remote)
        print(f"ledger: {len(recs)} records in {args.stories} stories "
              f"(written into the ref in {write_s:.2f} s)")

        teammate = clone(remote, tmp / "bo", "bo")
        subprocess.run([*GENESIS, "init"], cwd=teammate, env=env(), check=True,
                       stdout=subprocess.DEVNULL)

        noop = [timed([*GENESIS, "sync"], author) for _ in range(args.runs)]
        fetch = [timed(["git", "fetch", "-q", "origin"], author) for _ in range(args.runs)]
        version = [timed([*GENESIS, "--version"], author) for _ in range(args.runs)]

        pull = []
        for run in range(args.runs):
            new = [Record.new("artifact.added", story_id=f"STORY-{(run * 100 + k) % args.stories + 1}",
                              author_name="bo", author_email="bo@example.com",
                              payload={"role": "risk", "content": f"risk {run}-{k} 风险"})
                   for k in range(100)]
            G.append_records(teammate, new)
            subprocess.run(["git", "push", "-q", "--no-verify", "origin",
                            f"{R.LEDGER_REF}:{R.LEDGER_REF}"], cwd=teammate, check=True)
            subprocess.run([*GENESIS, "story", "set", "STORY-1", "--status", "review"],
                           cwd=author, env=env(), check=True, stdout=subprocess.DEVNULL)
            pull.append(timed([*GENESIS, "sync"], author))
            subprocess.run([*GENESIS, "sync"], cwd=teammate, env=env(), check=True,
                           stdout=subprocess.DEVNULL)

        fresh = []
        rebuild = []
        for run in range(args.runs):
            where = clone(remote, tmp / f"fresh{run}", "cy")
            fresh.append(timed([*GENESIS, "init"], where))
            sys.path.insert(0, str(ROOT))
            from genesis_git.store.connect import connect
            from genesis_git.stories.ledger.view import refresh

            db = tmp / f"view{run}.db"
            conn = connect(db)
            t0 = time.perf_counter()
            got = refresh(conn, where, where / ".git", "bench", force=True)
            rebuild.append(time.perf_counter() - t0)
            assert got["imported"] >= len(recs), got
            conn.close()
        git(remote, "gc", "-q")
        packed = size_of(remote)

        def row(name: str, values: list[float], target: str) -> str:
            return (f"| {name} | {statistics.median(values):.2f} s | {min(values):.2f}–"
                    f"{max(values):.2f} s | {target} |")

        print()
        print(f"| case ({args.stories:,} stories × 10 records, local `file://` remote) "
              "| median | range | target |")
        print("|---|---:|---:|---:|")
        print(row("`genesis sync`, nothing new", noop, "≤ 0.5 s"))
        print(row("`genesis sync` pulling 100 new records (and pushing 1)", pull, "≤ 1 s"))
        print(row("`genesis init` in a fresh clone (fetch + view from the ref)", fresh, "≤ 2 s"))
        print(row("the view rebuilt from the ref alone (in-process)", rebuild, ""))
        print(row("for scale: `git fetch` with nothing new", fetch, ""))
        print(row("for scale: `genesis --version` (interpreter start)", version, ""))
        print(f"\nload average during the run: {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
        print()
        print(f"remote ledger objects: {loose['size'] + loose['size-pack']} KiB as pushed "
              f"({loose['count']} loose objects, {loose['size-pack']} KiB packed); "
              f"{packed['size-pack']} KiB after git gc (the whole remote, with the "
              f"{len(recs) + args.runs * 100} records and one code commit)")
        print(growth)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
