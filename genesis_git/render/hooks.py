"""The git hooks: what install and uninstall did, and each hook's state."""

from __future__ import annotations

from typing import Any


def install_lines(result: dict[str, Any]) -> list[str]:
    out = []
    for h in result["hooks"]:
        extra = f" (the previous hook runs first as {h['hook']}.legacy)" if h["legacy"] else ""
        out.append(f"{h['action']:<9} {h['path']}{extra}")
    out.append(f"python:   {result['python']}")
    if result["fetch_refspecs"]:
        out.append("ledger:   `git fetch` brings refs/genesis/* from "
                   f"{', '.join(result['fetch_refspecs'])}")
    return out


def uninstall_lines(result: dict[str, Any]) -> list[str]:
    if not result["hooks"]:
        return ["no genesis hooks installed"]
    return [f"{h['action']}: {h['path']}" for h in result["hooks"]]


def status_lines(st: dict[str, Any]) -> list[str]:
    """The hooks folder, each hook's state (its manager, its Python), where the ledger is
    pushed, then notes."""
    out = [f"hooks folder: {st['dir']}" + (f" (core.hooksPath = {st['hooks_path']})"
                                           if st["hooks_path"] else "")]
    for h in st["hooks"]:
        line = f"  {h['hook']:<13} {h['state']}" + (f" ({h['manager']})" if h.get("manager")
                                                     else "")
        if h["python"]:
            line += f"  python: {h['python']}" + ("" if h["python_ok"] else " (missing)")
        if h["state"] != "missing" and not h["executable"]:
            line += "  (not executable)"
        out.append(line)
    if "ledger" in st:
        out.append(ledger_line(st["ledger"]))
    if st["inactive"]:
        out.append("note: genesis hooks in the default folder are not run: "
                   f"{', '.join(st['inactive'])}")
    if st["disabled_by_env"]:
        out.append("note: GENESIS_HOOKS=0 is set, the hooks do nothing")
    return out


def ledger_line(led: dict[str, Any]) -> str:
    """Where the story ledger is pushed: which remotes get it, and which never do."""
    if led.get("error"):
        return f"ledger: unknown, the configuration cannot be read ({led['error']})"
    if not led["share"]:
        return "ledger: not shared, it stays in this clone (`genesis init --share` shares it)"
    if not led["remotes"]:
        return ("ledger: shared, but no remote gets it (no origin; name one with "
                "`genesis init --share --remote NAME`)")
    names = ", ".join(r + (" (not a remote here)" if r in led["missing"] else "")
                      for r in led["remotes"])
    line = f"ledger: pushed to {names}"
    if led["others"]:
        line += f"; never to {', '.join(led['others'])}"
    return line
