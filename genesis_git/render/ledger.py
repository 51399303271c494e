"""Sharing the ledger: what ``genesis sync`` pulled and pushed, and what the PostgreSQL
mirror received."""

from __future__ import annotations

from typing import Any

from genesis_git.text.quoting import escape_controls, one_line


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


def repair_lines(res: dict[str, Any]) -> list[str]:
    """What was broken, and what the ledger holds now."""
    out = [f"repaired {escape_controls(what)}" for what in res["repaired"]] or [
        "nothing was repaired" if res["notes"] else "no ledger ref was broken"]
    n = res["records"]
    out.append(f"refs/genesis/ledger: {n} shared record{'s' if n != 1 else ''}"
               + (f", pushed to {res['remote']}" if res["pushed"] else ""))
    return out


def error_line(error: str) -> str:
    """Why the ledger was not shared, on one line of stderr; nothing was lost."""
    text = one_line(error)
    return f"genesis: error: {text} (nothing is lost: the records wait in this clone)\n"


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
