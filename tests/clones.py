"""Clones of one bare remote reached over ``file://``, each with its own store, identity
and installed hooks, driven through the real command: what the shared-ledger tests use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import git, write

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = {"ana": ("Ana Analyst", "ana@example.com"), "bo": ("Bo Builder", "bo@example.com"),
          "cy": ("Cy 陈", "cy@example.com")}


def env_of() -> dict[str, str]:
    """A clone's own store (in its git dir) and its own identity (from its git config)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GENESIS_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                        "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")}
    env["GENESIS_HOOKS_INDEX"] = "off"
    env["PYTHONPATH"] = str(ROOT)
    return env


def gen(clone: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", *args], cwd=clone, text=True,
                          capture_output=True, env=env_of(), timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"genesis {' '.join(args)} failed ({proc.returncode}): "
                             f"{proc.stderr}{proc.stdout}")
    return proc


def g(clone: Path, *args: str, check: bool = True) -> str:
    return git(clone, *args, check=check, env=env_of())


def context(clone: Path, story: str = "STORY-12") -> dict:
    return json.loads(gen(clone, "story", "context", story, "--json").stdout)


def comparable(ctx: dict) -> dict:
    """The context without what is local to one clone (row ids, the local session, whether
    a commit is in this clone's history)."""
    out = json.loads(json.dumps(ctx))
    for c in out["commits"]:
        c.pop("reachable", None)
        c.pop("fetched", None)
    for items in out["artifacts"].values():
        for a in items:
            for key in ("id", "doc_id", "shared"):
                a.pop(key, None)
        items.sort(key=lambda a: (a["created_at"], a["summary"] or ""))
    return out


def clone(remote: Path, tmp_path: Path, who: str, init: bool = True) -> Path:
    path = tmp_path / who
    git(tmp_path, "clone", "-q", f"file://{remote}", str(path))
    name, email = PEOPLE[who]
    git(path, "config", "user.name", name)
    git(path, "config", "user.email", email)
    git(path, "config", "commit.gpgsign", "false")
    if init:
        gen(path, "init")
        gen(path, "hooks", "install")
    return path


def commit(clone_: Path, rel: str, text: str, message: str) -> str:
    write(clone_, rel, text)
    g(clone_, "add", "-A")
    g(clone_, "commit", "-q", "-m", message)
    return g(clone_, "rev-parse", "HEAD").strip()


def make_remote(tmp_path: Path) -> Path:
    """A bare remote holding one commit on main, with sharing turned on."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    write(seed, "app/orders.py", "def total(items):\n    return sum(items)\n")
    write(seed, "docs/req/orders.md", "# 订单需求\n\n订单表新增字段 discount_code。\n")
    write(seed, ".genesis.toml", "[ledger]\nshare = true\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "initial")
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare
