"""Sharing the ledger: what ``genesis sync`` pulled and pushed, and what the PostgreSQL
mirror received."""

from __future__ import annotations

from typing import Any


def sync_lines(result: dict[str, Any], mirror_failed: bool) -> list[str]:
    """Records pulled and pushed, the stories touched, then the mirror (unless it failed)."""
    where = result["remote"] or "(no remote)"
    touched = result["stories"]
    out = [f"{where}: pulled {result['pulled']} record{'s' if result['pulled'] != 1 else ''}, "
           f"pushed {result['pushed']}; {result['total_stories']} stories"
           + (f" ({', '.join(touched[:10])}{' …' if len(touched) > 10 else ''} updated)"
              if touched else "")]
    mirrored = result["mirror"]
    if mirrored and not mirror_failed:
        out.append(f"mirror: {mirrored['added']} new records of {mirrored['project']} to "
                   f"{mirrored['mirror']}")
    return out


def mirror_warnings(res: dict[str, Any]) -> list[str]:
    if not res["project_source"].startswith("folder"):
        return []
    return [f"no origin remote: this repository is project {res['project']!r} in the mirror "
            "(set ledger.project_id to name it)"]


def mirror_line(res: dict[str, Any]) -> str:
    """Nothing to mirror, up to date, or what was mirrored."""
    if res["records"] == 0:
        return (f"nothing to mirror: the ledger of {res['project']} has no records yet "
                f"(the mirror at {res['mirror']} is ready)")
    if res["sent"] == 0:
        return (f"the mirror is up to date: {res['records']} records of {res['project']} "
                f"already in {res['mirror']}")
    return (f"mirrored {res['added']} new records of {res['project']} to {res['mirror']} "
            f"({res['records']} in the ledger, {res['stories']} stories updated, "
            f"{res['batches']} batches)")
