"""Sessions and their notes: index reports, a session's summary, the list of sessions, a
note's confirmation, as text for the command line and for the MCP tools."""

from __future__ import annotations

from typing import Any

from genesis_git.render.terminal import flat
from genesis_git.text.quoting import quote_path


def report_lines(report: dict[str, Any], verb: str) -> list[str]:
    """A start or refresh: counts, time, then the skipped files by reason (three of each)."""
    skipped = report["skipped"]
    n_skipped = sum(len(v) for v in skipped.values())
    out = [f"{verb} {report['session']}: {report['files']} files, {report['hits']} cache hits, "
           f"{report['misses']} misses, {report['chunks']} new chunks, {n_skipped} skipped "
           f"in {report['seconds']:.2f}s"]
    for reason, paths in skipped.items():
        shown = ", ".join(quote_path(p) for p in paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
        out.append(f"  skipped ({reason}): {shown}")
    return out


def summary_lines(s: dict[str, Any]) -> list[str]:
    """One session: worktree, branch, times, document, files and notes."""
    out = [f"session {s['id']} ({s['status']})" + (f" {flat(s['name'])!r}" if s["name"] else ""),
           f"  worktree:  {s['worktree']}",
           f"  branch:    {s['branch'] or '(detached)'} at {(s['head'] or '(no commits)')[:12]}",
           f"  started:   {s['started_at']}" + (f", ended {s['ended_at']}" if s["ended_at"]
                                                 else "")]
    if s["source_doc"]:
        out.append(f"  document:  {quote_path(s['source_doc'])}")
    if s["status"] == "active":
        types = ", ".join(f"{k} {v}" for k, v in s["types"].items())
        out += [f"  files:     {s['files']} ({s['dirty_files']} uncommitted), "
                f"{s['chunks']} chunks",
                f"  types:     {types or '-'}"]
    out.append(f"  artifacts: {s['artifacts']} ({s['unbound_artifacts']} not yet bound to a "
               "story)")
    return out


def list_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The sessions, one line each, newest first."""
    if not rows:
        return ["no sessions"]
    return [f"{s['id']}  {s['status']:<6}  {s['started_at'][:19]}  {s['files']:>6} files  "
            f"{flat(s['name'])}" for s in rows]


def ended_lines(sid: str, pending: int) -> list[str]:
    out = [f"ended {sid}"]
    if pending:
        out.append(f"{pending} note(s) of {sid} are not bound to a story yet: they bind to the "
                   "next commit in this worktree that names a story, or now with "
                   f"`genesis story bind STORY-ID --session {sid}`")
    return out


def _where(item: dict[str, Any]) -> str:
    return (f" ({quote_path(item['path'])}"
            + (f" § {flat(item['section'])}" if item["section"] else "") + ")"
            if item["path"] else "")


def noted(item: dict[str, Any], private: bool = False) -> str:
    """The command line's confirmation of a note."""
    return (f"noted #{item['id']} [{item['role']}]{' (private)' if private else ''} in "
            f"{item['session']}{_where(item)}; a commit with a story id binds it")


def secret_kept(item: dict[str, Any], override: str = "--allow-secret") -> str | None:
    """The one line that says a note was kept private because it holds a secret."""
    found = item.get("secret")
    if not found:
        return None
    return (f"the note looks like it holds {found['what']}: kept private in this clone, "
            f"never shared ({override} shares it)")


def noted_short(item: dict[str, Any]) -> str:
    """The MCP tool's confirmation of a note."""
    where = f" ({quote_path(item['path'])})" if item["path"] else ""
    kept = secret_kept(item, "allow_secret=true")
    return (f"noted #{item['id']} [{item['role']}]{' (private)' if item['private'] else ''} "
            f"in {item['session']}{where}; a commit with a story id binds it"
            + (f". Warning: {kept}" if kept else ""))


def artifacts_lines(res: dict[str, Any]) -> list[str]:
    """A session's notes, and which story each one is bound to."""
    out = [f"session {res['session']}: {len(res['artifacts'])} notes, {res['unbound']} unbound"]
    for a in res["artifacts"]:
        how = ("by hand" if a["by_hand"]
               else f"at {a['bound_commit'][:10]}") if a["bound_commit"] else ""
        bound = f"bound to {', '.join(a['stories'])} {how}" if a["bound_commit"] else "unbound"
        out.append(f"  #{a['id']} [{a['role']}] {flat(a['summary'])}{_where(a)} — {bound}")
    return out


def retracted(item: dict[str, Any]) -> str:
    where = f"it left {', '.join(item['stories'])}" if item["stories"] else "it was pending"
    private = "; private, so the retraction stays here" if item["private"] else ""
    return f"retracted #{item['id']} [{item['role']}] {flat(item['summary'])} — {where}{private}"


def status_short(s: dict[str, Any] | None) -> str:
    """The MCP tool's text for the active session (``None``: there is none)."""
    if s is None:
        return "no active session (session_start starts one; search and impact start one too)"
    types = ", ".join(f"{k} {v}" for k, v in s["types"].items()) or "-"
    return "\n".join([
        f"session {s['id']} ({s['status']})" + (f" {flat(s['name'])!r}" if s["name"] else ""),
        f"worktree: {s['worktree']}  branch: {s['branch'] or '(detached)'}",
        f"files: {s['files']} ({s['dirty_files']} uncommitted), {s['chunks']} chunks; {types}",
        f"document: {quote_path(s['source_doc']) if s['source_doc'] else '-'}",
        f"notes: {s['artifacts']} ({s['unbound_artifacts']} not yet bound to a story)"])


def report_short(report: dict[str, Any]) -> str:
    """The MCP tool's text for a start or refresh."""
    verb = "started" if report.get("started") else "refreshed"
    skipped = sum(len(v) for v in report["skipped"].values())
    return (f"{verb} {report['session']}: {report['files']} files, {report['hits']} cache hits, "
            f"{report['misses']} misses, {report['chunks']} new chunks, {skipped} skipped")
