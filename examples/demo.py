"""`make demo`: the main job of genesis on a temporary copy of examples/shop.

Each step prints a short narrated heading and the command; the command then writes to
the terminal itself, so what appears is what a user of genesis sees (tables and colour on
a terminal, plain text in a pipe).  It needs only genesis and git: the one step that needs
Node is skipped with a line when node is missing.  The temporary repository is left in
place and its path printed at the end.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENESIS = str(Path(sys.executable).parent / "genesis")
TTY = sys.stdout.isatty()
STEP = 0


def heading(text: str) -> None:
    global STEP
    STEP += 1
    print(f"\n\033[1m== {STEP}. {text}\033[0m" if TTY else f"\n== {STEP}. {text}")


def say(text: str) -> None:
    """A line of narration, set apart from what the commands print."""
    print(f"\033[2m# {text}\033[0m" if TTY else f"# {text}")


def run(args: list[str], cwd: Path, expect: int = 0, *, shown: str | None = None,
        quiet: bool = False) -> None:
    """Run ``args`` as a user would type ``shown``; its output goes straight to the terminal
    (``quiet``: set-up steps whose output is shown only when they fail)."""
    shown = shown or shlex.join(args)
    if not quiet:
        print(f"$ {shown}")
    sys.stdout.flush()
    proc = subprocess.run(args, cwd=cwd, capture_output=quiet, text=True)
    if proc.returncode != expect:
        if quiet:
            print((proc.stdout + proc.stderr).rstrip())
        sys.exit(f"demo: `{shown}` exited {proc.returncode}, expected {expect}")


def genesis(*args: str, cwd: Path, expect: int = 0) -> None:
    run([GENESIS, *args], cwd, expect, shown=shlex.join(["genesis", *args]))


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ.pop("GENESIS_HOME", None)  # the store lives in the demo repository's .git
    work = Path(tempfile.mkdtemp(prefix="genesis-demo-"))
    repo = work / "shop"
    shutil.copytree(HERE / "shop", repo)
    git = ["git", "-c", "init.defaultBranch=main"]
    run([*git, "init", "-q"], repo, quiet=True)
    run(["git", "config", "user.name", "Demo Analyst"], repo, quiet=True)
    run(["git", "config", "user.email", "analyst@example.com"], repo, quiet=True)
    run(["git", "add", "-A"], repo, quiet=True)
    run(["git", "commit", "-q", "-m", "Import the shop example"], repo, quiet=True)
    print(f"demo repository: {repo}")

    heading("Set up: the store, a commented config, and the git hooks")
    say("the store goes inside .git; the settings go into pyproject.toml's [tool.genesis]")
    genesis("init", cwd=repo)
    genesis("hooks", "install", cwd=repo)
    say("settings are a team decision: commit them")
    run(["git", "commit", "-q", "-m", "Add the genesis settings", "pyproject.toml"], repo)

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
    say("the next command fails on purpose: one card in the inbox has no license, so genesis")
    say("rejects it, ingests the others, and exits 1 to say that not everything went in")
    genesis("design", "ingest", "inbox", cwd=repo, expect=1)
    genesis("design", "brief", "深色 卡片 间距", cwd=repo)
    if shutil.which("node") is None:
        say("node is not installed: skipped the second reader (node query.mjs, Node 20+)")
    else:
        say("a second agent without genesis reads the same library with Node alone:")
        run(["node", ".shared/design-library/query.mjs", "深色 卡片 间距", "--top", "3"], repo)
    genesis("design", "feedback", "DSG-0001", "useful", "--note", "matches our cards",
            cwd=repo)

    heading("A second worktree shares the store: its session hits the cache for every file")
    review = work / "shop-review"
    run(["git", "worktree", "add", "-q", "--detach", str(review), "HEAD"], repo)
    genesis("session", "start", cwd=review)

    heading("A teammate's clone: the story ledger travels through the git remote")
    remote = work / "shop-remote.git"
    run([*git, "init", "-q", "--bare", str(remote)], work, quiet=True)
    genesis("init", "--share", cwd=repo)  # [tool.genesis.ledger] share = true
    run(["git", "commit", "-q", "-m", "Share the story ledger", "pyproject.toml"], repo)
    run(["git", "remote", "add", "origin", remote.as_uri()], repo, quiet=True)
    genesis("hooks", "install", cwd=repo)  # the fetch refspec for the new remote
    run(["git", "push", "-q", "-u", "origin", "main"], repo)  # pre-push pushes the ledger along
    mate = work / "shop-teammate"
    run(["git", "clone", "-q", remote.as_uri(), str(mate)], work)
    run(["git", "config", "user.name", "Demo Developer"], mate, quiet=True)
    run(["git", "config", "user.email", "developer@example.com"], mate, quiet=True)
    say("sharing is on in the clone's pyproject.toml: init pulls the ledger")
    genesis("init", cwd=mate)
    genesis("story", "context", "STORY-12", cwd=mate)
    genesis("sync", "--json", cwd=mate)

    heading("What the tour left in the working tree, and what to commit")
    run(["git", "status", "--short"], repo)
    say(".shared/: the design library and the two agents' outboxes, project content: commit")
    say("tasks/design-brief.md: rewritten by each brief; commit it if the story should keep it")
    say("the store, the hooks and the logs live inside .git: nothing to commit or ignore")

    print(f"\nDone. Explore the demo repository at:\n  {repo}")


if __name__ == "__main__":
    main()
