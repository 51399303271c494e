"""Helpers shared by the design-library tests (this module holds no tests itself)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from genesis_git.cli.main import app
from genesis_git.design.library import Library, open_library

from conftest import ROOT

runner = CliRunner()
LIB = Path(".shared/design-library")
INBOX_EXAMPLE = ROOT / "examples" / "design-inbox"


def design(*args: str) -> Result:
    """``genesis design ARGS`` in the current directory, through the real app."""
    return runner.invoke(app, ["design", *args])


def ok(*args: str) -> Result:
    res = design(*args)
    assert res.exit_code == 0, f"design {' '.join(args)}: {res.exit_code}\n{res.output}"
    return res


def lib_of(root: Path) -> Library:
    return open_library(root)


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mtime (ns) of every file below ``folder``."""
    out: dict[str, tuple[str, int]] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out[p.relative_to(folder).as_posix()] = (
                hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


def copy_inbox(root: Path, *, unknown_license_for_empty: bool = False) -> None:
    inbox = root / LIB / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    for p in INBOX_EXAMPLE.iterdir():
        shutil.copy(p, inbox / p.name)
    if unknown_license_for_empty:
        meta_path = inbox / "empty-list.meta.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["license"] = "unknown"
        meta_path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")


def node() -> str:
    exe = shutil.which("node")
    assert exe, "the reader tests need Node.js >= 20 on PATH"
    return exe


def run_reader(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NODE_")}
    return subprocess.run([node(), str(root / LIB / "query.mjs"), *args], cwd=root,
                          capture_output=True, text=True, encoding="utf-8", env=env, timeout=60)


def card(n: int, title: str, tags: list[str], tokens: dict[str, Any], rationale: str,
         summary: str = "", dos: list[str] | None = None, donts: list[str] | None = None,
         license: str = "CC-BY-4.0", status: str = "active") -> dict[str, Any]:
    """A card as another library's manifest would hold it."""
    return {"id": f"SRC-{n:04d}", "title": title, "summary": summary, "tags": tags,
            "source": {"kind": "user", "ref": f"fixture board {n}", "license": license},
            "tokens": tokens, "rationale": rationale, "dos": dos or [], "donts": donts or [],
            "images": [], "status": status, "weight": 1.0}


def tok(name: str, value: Any, unit: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "value": value}
    if unit:
        out["unit"] = unit
    return out


def write_manifest(path: Path, cards: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schemaVersion": 1, "cards": cards}, ensure_ascii=False,
                               indent=2), encoding="utf-8")
    return path
