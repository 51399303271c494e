"""``genesis web`` on a repository with a few hundred stories: how long the pages take.

Builds a real repository in a temporary folder (the shop example), installs the real hooks,
and makes ``--stories`` story commits through them (``git commit -m "STORY-n: …"``), with
notes of every role written through the library between the commits, so that each story
has a requirement, notes, decisions, risks and changed files.  Then it starts
``genesis web --port 0`` as a subprocess and times each page over loopback (the time a
request takes from the client's side: an upper bound of the server's time), after one
warm-up request per page.

    .venv/bin/python bench/web_bench.py [--stories 300] [--runs 20] [--keep DIR]
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
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
ROLES = ("analysis", "decision", "risk", "test_model", "note")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


def _genesis(cwd: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, timeout=600).stdout


def build(root: Path, stories: int) -> float:
    """The repository with ``stories`` stories made through the installed hooks; seconds."""
    from genesis_git.app.facade import Genesis

    shutil.copytree(ROOT / "examples" / "shop", root,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "Bench Analyst")
    _git(root, "config", "user.email", "bench@example.com")
    _git(root, "config", "commit.gpgsign", "false")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the shop")
    _genesis(root, "init")
    _genesis(root, "hooks", "install")
    _genesis(root, "session", "start", "--doc", "docs/req/user-login.md")
    started = time.monotonic()
    with Genesis(root) as g:
        for n in range(1, stories + 1):
            for k in range(n % 3 + 1):
                g.sessions.note(f"story {n}: {ROLES[(n + k) % len(ROLES)]} about login "
                                f"attempt {k}, the session token and the audit log",
                                role=ROLES[(n + k) % len(ROLES)])
            g.close()  # the hooks write the store next
            rel = f"app/feature_{n % 40}.py"
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"def story_{n}(user):\n    return user.login_attempts + {n}\n\n")
            _git(root, "add", rel)
            _git(root, "commit", "-q", "-m", f"STORY-{n}: login rule {n} for the session token")
            if n % 50 == 0:
                print(f"  {n} stories", file=sys.stderr, flush=True)
    return time.monotonic() - started


def serve(root: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([sys.executable, "-m", "genesis_git", "web", "--port", "0"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    url = proc.stdout.readline().decode().strip()
    if not url.startswith("http://"):
        proc.kill()
        raise SystemExit(f"genesis web printed no URL: {url!r}")
    return proc, url


def timed(url: str, runs: int) -> tuple[float, float, int]:
    """``(median ms, max ms, status)`` of ``runs`` requests after one warm-up."""
    with urllib.request.urlopen(url, timeout=120) as resp:
        resp.read()
    times = []
    status = 0
    for _ in range(runs):
        start = time.perf_counter()
        with urllib.request.urlopen(url, timeout=120) as resp:
            resp.read()
            status = resp.status
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stories", type=int, default=300)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    os.environ.pop("GENESIS_HOME", None)  # the store in the repository's git dir: --keep keeps it
    os.environ["GENESIS_HOOKS_INDEX"] = "off"
    os.environ["PYTHONPATH"] = str(ROOT)
    tmp = Path(tempfile.mkdtemp(prefix="genesis-web-bench-"))
    root = args.keep or tmp / "repo"
    try:
        if not (root / ".git").exists():
            secs = build(root, args.stories)
            print(f"built {args.stories} story commits through the hooks in {secs:.0f} s")
        proc, url = serve(root)
        try:
            mid = args.stories // 2
            pages = [("story list", "stories"),
                     ("story list, filtered", "stories?q=login+rule+1&status=in_progress"),
                     (f"story page (STORY-{mid})", f"stories/STORY-{mid}"),
                     (f"story page (STORY-{args.stories})", f"stories/STORY-{args.stories}"),
                     ("impact page", "impact?q=" + quote("login attempts audit log")),
                     ("search page", "search?q=" + quote("session token"))]
            print("| page | median | max | status |\n|---|---|---|---|")
            for name, path in pages:
                med, top, status = timed(url + path, args.runs)
                print(f"| {name} | {med:.0f} ms | {top:.0f} ms | {status} |")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
