"""Scale: genesis on a 10,000-file repository of real code, and on five times that.

The repository is built from the trees of five public Python projects, side
by side in one commit (one folder each), about 10,800 files and 100 MB:

============  ==========================================  ========================================
folder        source (clone with ``git clone --bare URL``)  commit measured (``--rev`` default HEAD)
============  ==========================================  ========================================
``sympy``     https://github.com/sympy/sympy.git            e950d313a932bc6cccbc95376b3821cd2f8b5af4
``astropy``   https://github.com/astropy/astropy.git        1fdfae1fe1881234e08855ac662dae86e538ed7c
``sphinx``    https://github.com/sphinx-doc/sphinx.git      e44a40eb2f810558ccd9da1425421270ccb81351
``pylint``    https://github.com/pylint-dev/pylint.git      3a99b2d728d0c8ff5267e0c38ebad4f5ba228dac
``xarray``    https://github.com/pydata/xarray.git          b1c1dc549b62bdfc8de0bdded24f56464cf0db1a
============  ==========================================  ========================================

Give each source as ``--source NAME=PATH`` (any clone, bare or not, that
holds the commit); a missing one is cloned from the URL above into
``--sources`` (default ``$TMPDIR/genesis-scale-sources``).  The trees are
written with ``git archive`` of ``--rev`` (default: the commit in the table
when the clone has it, else its HEAD), so only the tree counts, never the
history.  Nothing fetched goes into this project: keep ``--work`` outside it.

The 5x repository holds the same five trees under five folders
(``copy1/`` … ``copy5/``).  Copy *k* of every text file gets *k - 1* extra
newlines at its end, so that no two copies share a blob: identical files
are indexed once by design, and the 5x run must pay for 5x the content.

For each scale the bench runs the real console script with a fresh store
(``GENESIS_HOME``) and reports, each with the child's peak RSS and its CPU
seconds, user plus system, its own and those of the processes it waited for
(``wait4``; on a shared machine the CPU seconds say what the wall seconds
cannot):

* ``genesis --version`` (the floor every command pays: Python + imports);
* cold ``session start`` (empty store; the background build of the search
  base is off, so that the first search pays for it and it is measured);
* resume: ``session start`` again with nothing changed;
* the first ``search`` (builds and saves the session's search base);
* later ``search`` (median of the queries);
* ``impact`` (each call a fresh process): the first call on the store, and
  the median of the requirements;
* with the background build on: ``session start`` then a ``search`` at once,
  and the seconds until the background base is ready;
* the store on disk (database, WAL, search bases) against the indexed text.

    python bench/scale_bench.py [--scales 1,5] [--work DIR] [--source NAME=PATH ...]

The genesis measured is the one this Python imports (``PYTHONPATH`` may point
at another checkout's package to compare two versions on the same trees).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GENESIS = [str(Path(sys.executable).parent / "genesis")]

SOURCES: dict[str, tuple[str, str]] = {
    "sympy": ("https://github.com/sympy/sympy.git", "e950d313a932bc6cccbc95376b3821cd2f8b5af4"),
    "astropy": ("https://github.com/astropy/astropy.git",
                "1fdfae1fe1881234e08855ac662dae86e538ed7c"),
    "sphinx": ("https://github.com/sphinx-doc/sphinx.git",
               "e44a40eb2f810558ccd9da1425421270ccb81351"),
    "pylint": ("https://github.com/pylint-dev/pylint.git",
               "3a99b2d728d0c8ff5267e0c38ebad4f5ba228dac"),
    "xarray": ("https://github.com/pydata/xarray.git", "b1c1dc549b62bdfc8de0bdded24f56464cf0db1a"),
}

SEARCHES = ["matrix determinant", "parse docstring directive", "unused import warning",
            "dataset resample time", "fits header keyword", "autodoc mock imports",
            "坐标 转换", "TimeDelta format"]
IMPACTS = ["add a keyword argument to Dataset.resample for the closed side",
           "checker for unused private members reports false positives",
           "FITS header cards longer than 80 characters",
           "autodoc: support type aliases in signatures"]


def git(*args: str, cwd: Path | None = None, **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env,
                          **kw)  # type: ignore[call-overload]


def source_clone(name: str, given: dict[str, Path], sources: Path) -> Path:
    if name in given:
        return given[name]
    dest = sources / f"{name}.git"
    if not (dest / "HEAD").exists():
        sources.mkdir(parents=True, exist_ok=True)
        git("clone", "--quiet", "--bare", SOURCES[name][0], str(dest))
    return dest


def tree_rev(clone: Path, name: str, rev: str | None) -> str:
    if rev:
        return rev
    pinned = SOURCES[name][1]
    ok = subprocess.run(["git", "cat-file", "-e", f"{pinned}^{{commit}}"], cwd=clone,
                        capture_output=True).returncode == 0
    return pinned if ok else "HEAD"


def is_text(data: bytes) -> bool:
    return b"\0" not in data[:8000]


def build_repo(dest: Path, copies: int, clones: dict[str, Path], rev: str | None) -> Path:
    """The repository of ``copies`` copies of the five trees (made once per ``dest``)."""
    if (dest / ".git" / "genesis-scale-ready").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    git("init", "--quiet", "-b", "main", cwd=dest)
    # the trees' own .gitattributes (eol, working-tree-encoding) must not rewrite their blobs
    (dest / ".git" / "info").mkdir(exist_ok=True)
    (dest / ".git" / "info" / "attributes").write_text(
        "* -text -eol -working-tree-encoding -filter -ident\n")
    for name, clone in clones.items():
        r = tree_rev(clone, name, rev)
        for k in range(1, copies + 1):
            prefix = f"{name}/" if copies == 1 else f"copy{k}/{name}/"
            # streamed: this process stays small, and a child's peak RSS is its own
            # (a forked child starts from the parent's RSS, which ``ru_maxrss`` would count)
            env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
            archive = subprocess.Popen(["git", "archive", "--format=tar", f"--prefix={prefix}", r],
                                       cwd=clone, stdout=subprocess.PIPE, env=env)
            subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True)
            assert archive.stdout is not None
            archive.stdout.close()
            if archive.wait() != 0:
                raise SystemExit(f"git archive {r} failed in {clone}")
            if k > 1:
                for path in (dest / prefix).rglob("*"):
                    if path.is_file() and not path.is_symlink():
                        data = path.read_bytes()
                        if is_text(data):
                            path.write_bytes(data + b"\n" * (k - 1))
    git("add", "-A", cwd=dest)
    git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "--quiet",
        "-m", f"{copies} copies of five trees", cwd=dest)
    (dest / ".git" / "genesis-scale-ready").write_text("ok\n")
    return dest


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, bytes, float]:
    """Wall seconds, peak RSS in MB (the child and what it waited for), stdout and CPU seconds
    (user + system, the child and what it waited for)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out: list[bytes] = []
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))  # type: ignore[union-attr]
    ereader = threading.Thread(target=lambda: err.append(proc.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    ereader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t0
    reader.join()
    ereader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): "
                         f"{err[0].decode(errors='replace')[-2000:]}")
    return secs, usage.ru_maxrss / 1024, out[0], usage.ru_utime + usage.ru_stime


def store_bytes(home: Path) -> dict[str, int]:
    parts = {"db": 0, "wal": 0, "search": 0, "other": 0}
    for p in home.rglob("*"):
        if not p.is_file():
            continue
        size = p.stat().st_size
        if p.name == "genesis.db":
            parts["db"] += size
        elif p.name.endswith("-wal"):
            parts["wal"] += size
        elif "search" in p.relative_to(home).parts:
            parts["search"] += size
        else:
            parts["other"] += size
    return parts


def indexed_text(home: Path) -> tuple[int, int, int]:
    """Files, bytes and chunks of the text the active session maps."""
    conn = sqlite3.connect(f"file:{home / 'genesis.db'}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(b.size), 0), COALESCE(SUM(b.n_chunks), 0) "
            "FROM rag_session_chunk_map m JOIN sessions s ON s.id = m.session_id "
            "JOIN rag_blob_cache b ON b.id = m.blob_id "
            "WHERE s.status = 'active' AND b.status = 'ready'").fetchone()
    finally:
        conn.close()
    return int(row[0]), int(row[1]), int(row[2])


def wait_base(home: Path, timeout: float) -> float | None:
    """Seconds until no background build marker is left (``None`` on timeout)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        search = home / "search"
        bases = list(search.glob("*")) if search.is_dir() else []
        if bases and not any(p.suffix == ".building" for p in bases):
            return time.perf_counter() - t0
        time.sleep(0.1)
    return None


def bench_scale(repo: Path, runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    home = Path(tempfile.mkdtemp(prefix="genesis-scale-home-"))
    env["GENESIS_HOME"] = str(home)
    env["GENESIS_SEARCH_PREBUILD_CHUNKS"] = "0"
    res: dict[str, object] = {}
    cpu: dict[str, float] = {}
    res["cpu"] = cpu
    version = [run([*GENESIS, "--version"], repo, env) for _ in range(max(3, runs))]
    res["version"] = (statistics.median(v[0] for v in version),
                      statistics.median(v[1] for v in version))
    cpu["version"] = statistics.median(v[3] for v in version)
    t0 = time.perf_counter()
    for _ in range(3):
        git("status", "--porcelain", cwd=repo)
        git("ls-files", "-s", cwd=repo)
    res["git"] = ((time.perf_counter() - t0) / 3, 0.0)
    files = git("ls-files", "-z", cwd=repo).stdout.count(b"\0")
    res["tracked_files"] = files
    cold = run([*GENESIS, "session", "start"], repo, env)
    res["cold"] = cold[:2]
    cpu["cold"] = cold[3]
    resume = [run([*GENESIS, "session", "start"], repo, env) for _ in range(runs)]
    res["resume"] = (statistics.median(r[0] for r in resume), max(r[1] for r in resume))
    cpu["resume"] = statistics.median(r[3] for r in resume)
    first = run([*GENESIS, "search", SEARCHES[0]], repo, env)
    res["first_search"] = first[:2]
    cpu["first_search"] = first[3]
    later = [run([*GENESIS, "search", q], repo, env) for q in SEARCHES[1:]]
    res["search"] = (statistics.median(r[0] for r in later), max(r[1] for r in later))
    cpu["search"] = statistics.median(r[3] for r in later)
    impacts = [run([*GENESIS, "impact", "--json", q], repo, env) for q in IMPACTS[:max(2, runs)]]
    res["first_impact"] = impacts[0][:2]
    cpu["first_impact"] = impacts[0][3]
    res["impact"] = (statistics.median(r[0] for r in impacts), max(r[1] for r in impacts))
    cpu["impact"] = statistics.median(r[3] for r in impacts)
    res["impact_all"] = [round(r[0], 2) for r in impacts]
    res["impact_top"] = [[f["path"] for f in json.loads(r[2])["files"][:3]] for r in impacts]
    res["store"] = store_bytes(home)
    res["indexed"] = indexed_text(home)
    # the same start with the background build of the search base on
    shutil.rmtree(home)
    home.mkdir()
    env.pop("GENESIS_SEARCH_PREBUILD_CHUNKS")
    start = run([*GENESIS, "session", "start"], repo, env)
    res["bg_start"] = start[:2]
    cpu["bg_start"] = start[3]
    after = run([*GENESIS, "search", SEARCHES[1]], repo, env)
    res["bg_search"] = after[:2]
    cpu["bg_search"] = after[3]
    res["bg_ready"] = wait_base(home, 600)
    res["bg_store"] = store_bytes(home)
    shutil.rmtree(home)
    return res


def report(rows: dict[int, dict[str, object]]) -> None:
    scales = sorted(rows)
    print(f"machine: {os.cpu_count()} cores; load at the end {os.getloadavg()[0]:.2f}")
    head = "| step | " + " | ".join(f"{s}×: s | CPU s | MB | × `--version` s / MB"
                                     for s in scales) + " |"
    print(head)
    print("|---|" + "---|---|---|---|" * len(scales))
    names = [("version", "`genesis --version`"), ("cold", "cold `session start`"),
             ("resume", "resume (`session start`, nothing changed)"),
             ("first_search", "first `search` (builds the base)"), ("search", "later `search`"),
             ("first_impact", "first `impact` on the store"),
             ("impact", "`impact` (median of the calls)"),
             ("bg_start", "`session start`, background base on"),
             ("bg_search", "`search` right after it")]
    for key, label in names:
        cells = []
        for s in scales:
            secs, mb = rows[s][key]  # type: ignore[misc]
            vs, vm = rows[s]["version"]  # type: ignore[misc]
            used = rows[s]["cpu"][key]  # type: ignore[index]
            cells.append(f"{secs:.2f} | {used:.2f} | {mb:.0f} | {secs / vs:.1f}× / {mb / vm:.1f}×")
        print(f"| {label} | " + " | ".join(cells) + " |")
    for s in scales:
        r = rows[s]
        files, size, chunks = r["indexed"]  # type: ignore[misc]
        st = r["store"]  # type: ignore[assignment]
        total = sum(st.values())  # type: ignore[attr-defined]
        print(f"{s}×: {r['tracked_files']} tracked, {files} indexed files, {size / 1e6:.1f} MB text, "
              f"{chunks} chunks; store {total / 1e6:.1f} MB ({total / size:.2f}× the text: "
              + ", ".join(f"{k} {v / 1e6:.1f}" for k, v in st.items())  # type: ignore[attr-defined]
              + f"); background base ready {r['bg_ready']} s after start; "
              f"git status + ls-files {r['git'][0] * 1000:.0f} ms; "  # type: ignore[index]
              f"impact calls {r['impact_all']}")
    print(json.dumps({str(k): v for k, v in rows.items()}, default=str))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="1,5")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "genesis-scale")
    ap.add_argument("--sources", type=Path,
                    default=Path(tempfile.gettempdir()) / "genesis-scale-sources")
    ap.add_argument("--source", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--rev", default=None, help="the same revision in every source")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    given = {}
    for item in args.source:
        name, _, path = item.partition("=")
        if name not in SOURCES:
            ap.error(f"unknown source {name!r}: one of {', '.join(SOURCES)}")
        given[name] = Path(path)
    clones = {name: source_clone(name, given, args.sources) for name in SOURCES}
    import compileall

    import genesis_git

    compileall.compile_dir(str(Path(genesis_git.__file__).parent), quiet=1)
    rows: dict[int, dict[str, object]] = {}
    print(f"load at the start {os.getloadavg()[0]:.2f}", flush=True)
    for scale in (int(s) for s in args.scales.split(",")):
        repo = build_repo(args.work / f"x{scale}", scale, clones, args.rev)
        rows[scale] = bench_scale(repo, args.runs)
        print(f"{scale}×:", json.dumps(rows[scale], default=str), flush=True)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
