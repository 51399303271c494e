"""Setting up and checking: what ``genesis init`` did and what ``genesis doctor`` found."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.kernel.findings import Finding


def init_lines(result: dict[str, Any]) -> list[str]:
    """The store and the config (created or there), story prefixes seen, the shared ledger."""
    table = f" [{result['config_table']}]" if result.get("config_table") else ""
    out = [f"store:  {result['store']} ({'created' if result['store_created'] else 'exists'})",
           f"config: {result['config']}{table} "
           f"({'created' if result['config_created'] else 'exists'})"]
    found = result["story_prefixes"]
    if found and not result["prefixes_set"]:
        shown = ", ".join(f"{p['prefix']} ({p['commits']})" for p in found)
        names = ", ".join(f'"{p["prefix"]}"' for p in found)
        out.append(f"story ids in git log: {shown}; to bind only these, set "
                   f"story.prefixes = [{names}] in {result['config']}"
                   + (f" [{result['config_table']}.story]" if table else ""))
    elif not result["prefixes_set"] and result.get("commits_surveyed"):
        out.append(f"story ids: none in the last {result['commits_surveyed']} commits of "
                   "git log; nothing to propose")
    if result["share"]:
        to = ", ".join(result.get("share_remotes") or []) or "no remote yet"
        out.append(f"ledger: shared through the git remote ({to})"
                   + (f" (set now: commit {PurePath(result['config']).name})"
                      if result["share_set"] else ""))
    synced = result["sync"]
    if synced and synced["remote"]:
        out.append(f"ledger: pulled {synced['pulled']} records from {synced['remote']}, "
                   f"pushed {synced['pushed']}; {synced['total_stories']} stories")
    return out


def doctor_json(findings: Sequence[Finding]) -> dict[str, Any]:
    """``genesis doctor --json``: ``ok`` (no check failed) and every check."""
    return {"ok": not any(f.status == "error" for f in findings),
            "checks": [f.as_dict() for f in findings]}


def doctor_lines(findings: Sequence[Finding]) -> list[str]:
    """One line per check (its fix under it when it is not ok), then the verdict."""
    out = []
    for f in findings:
        mark = {"ok": "ok  ", "warn": "warn", "error": "FAIL"}[f.status]
        out.append(f"[{mark}] {f.name}: {f.message}")
        if f.fix and f.status != "ok":
            out.append(f"       fix: {f.fix}")
    broken = sum(f.status == "error" for f in findings)
    return [*out, "", "all checks passed" if not broken else f"{broken} check(s) failed"]
