"""`make demo`: the main job of genesis on a temporary copy of examples/shop.

Each step prints a short narrated heading, the command, and its output.  The
temporary repository is left in place and its path printed at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENESIS = str(Path(sys.executable).parent / "genesis")
STEP = 0


def heading(text: str) -> None:
    global STEP
    STEP += 1
    print(f"\n\033[1m== {STEP}. {text}\033[0m" if sys.stdout.isatty() else f"\n== {STEP}. {text}")


def run(args: list[str], cwd: Path, expect: int = 0, show: bool = True) -> str:
    shown = " ".join(a if " " not in a else f'"{a}"' for a in args)
    if show:
        print(f"$ {shown}", flush=True)
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    if show and out.strip():
        print(out.rstrip(), flush=True)
    if proc.returncode != expect:
        sys.exit(f"demo: `{shown}` exited {proc.returncode}, expected {expect}")
    return out


def genesis(*args: str, cwd: Path, expect: int = 0) -> str:
    out = run([GENESIS, *args], cwd, expect, show=False)
    print(f"$ genesis {' '.join(a if ' ' not in a else repr(a) for a in args)}")
    if out.strip():
        print(out.rstrip(), flush=True)
    return out


def main() -> None:
    os.environ.pop("GENESIS_HOME", None)  # the store lives in the demo repository's .git
    work = Path(tempfile.mkdtemp(prefix="genesis-demo-"))
    repo = work / "shop"
    shutil.copytree(HERE / "shop", repo)
    git = ["git", "-c", "init.defaultBranch=main"]
    run([*git, "init", "-q"], repo, show=False)
    run(["git", "config", "user.name", "Demo Analyst"], repo, show=False)
    run(["git", "config", "user.email", "analyst@example.com"], repo, show=False)
    run(["git", "add", "-A"], repo, show=False)
    run(["git", "commit", "-q", "-m", "Import the shop example"], repo, show=False)
    print(f"demo repository: {repo}")

    heading("Set up: the store, a commented config, and the git hooks")
    genesis("init", cwd=repo)
    genesis("hooks", "install", cwd=repo)

    heading("Start a session from the analyst's requirement document (no story id yet)")
    genesis("session", "start", "--doc", "docs/req/订单需求说明.md", cwd=repo)

    heading("Search in English, then in Chinese; every score is explained")
    genesis("search", "order total amount", "-k", "5", cwd=repo)
    genesis("search", "订单状态", "-k", "5", "--explain", cwd=repo)

    heading("Impact investigation: what does a new orders field touch?")
    genesis("impact", "订单表新增字段 discount_code", "-k", "8", cwd=repo)

    heading("Record a decision and a risk in the session")
    genesis("session", "note", "discount_code is nullable; existing orders keep NULL",
            "--role", "decision", cwd=repo)
    genesis("session", "note", "order totals must be recomputed when a code is applied",
            "--role", "risk", cwd=repo)

    heading("Edit, then commit with the story id: the hooks bind the session to STORY-12")
    schema = repo / "db" / "schema.sql"
    schema.write_text(schema.read_text(encoding="utf-8").replace(
        "CREATE TABLE orders (", "CREATE TABLE orders (\n    discount_code TEXT,", 1),
        encoding="utf-8")
    run(["git", "commit", "-q", "-am", "STORY-12: add discount code"], repo)
    run(["git", "log", "--format=%h %s%n%b", "-1"], repo)

    heading("Anyone can now rebuild the whole increment of STORY-12")
    genesis("story", "context", "STORY-12", cwd=repo)

    heading("Design references: rules, an inbox (one card lacks a license), a brief")
    genesis("design", "init", cwd=repo)
    genesis("design", "ingest", "rules", cwd=repo)
    inbox = repo / ".shared" / "design-library" / "inbox"
    for f in sorted((HERE / "design-inbox").iterdir()):
        shutil.copy2(f, inbox / f.name)
    genesis("design", "ingest", "inbox", cwd=repo, expect=1)  # exit 1: one card was rejected
    genesis("design", "brief", "深色 卡片 间距", cwd=repo)
    print("# a second agent without genesis reads the same library with Node alone:")
    run(["node", ".shared/design-library/query.mjs", "深色 卡片 间距", "--top", "3"], repo)
    genesis("design", "feedback", "DSG-0001", "useful", "--note", "matches our cards",
            cwd=repo)

    heading("A second worktree shares the store: its session hits the cache for every file")
    review = work / "shop-review"
    run(["git", "worktree", "add", "-q", "--detach", str(review), "HEAD"], repo)
    genesis("session", "start", cwd=review)

    heading("A teammate's clone: the story ledger travels through the git remote")
    remote = work / "shop-remote.git"
    run([*git, "init", "-q", "--bare", str(remote)], work, show=False)
    genesis("init", "--share", cwd=repo)  # [ledger] share = true, committed with the code
    run(["git", "add", ".genesis.toml"], repo, show=False)
    run(["git", "commit", "-q", "-m", "Share the story ledger"], repo, show=False)
    run(["git", "remote", "add", "origin", remote.as_uri()], repo, show=False)
    genesis("hooks", "install", cwd=repo)  # the fetch refspec for the new remote
    run(["git", "push", "-u", "origin", "main"], repo)  # pre-push pushes the ledger along
    mate = work / "shop-teammate"
    run(["git", "clone", "-q", remote.as_uri(), str(mate)], work)
    run(["git", "config", "user.name", "Demo Developer"], mate, show=False)
    run(["git", "config", "user.email", "developer@example.com"], mate, show=False)
    genesis("init", cwd=mate)  # sharing is on in the clone's .genesis.toml: the ledger is pulled
    genesis("story", "context", "STORY-12", cwd=mate)
    genesis("sync", "--json", cwd=mate)

    print(f"\nDone. Explore the demo repository at:\n  {repo}")


if __name__ == "__main__":
    main()
