"""The short text renderings of the MCP tools' results, beside their structured JSON."""

from __future__ import annotations

from typing import Any


def one_line(text: str) -> str:
    """``text`` on one line, for a tool error."""
    return " ".join(str(text).split())


def with_warnings(lines: list[str], warnings: list[str]) -> list[str]:
    return [*(f"warning: {w}" for w in warnings), *lines]


def render_search(data: dict[str, Any]) -> str:
    from genesis_git.text.quoting import quoted

    head = f"{len(data['results'])} results for {quoted(data['query'])} ({data['mode']})"
    lines = [head]
    for r in data["results"]:
        if data["level"] == "file":
            ranges = ", ".join(f"{c['start_line']}-{c['end_line']}" for c in r["chunks"])
            lines.append(f"{r['path']}  {r['score']:.4f}  {r['type']}  lines {ranges}")
        else:
            where = r["section"] or r["symbol"] or ""
            first = " ".join(r["text"].split())[:100]
            lines.append(f"{r['path']}:{r['start_line']}-{r['end_line']}  {r['score']:.4f}  "
                         f"{r['type']}  {where}  | {first}")
    return "\n".join(with_warnings(lines, data["warnings"]))


def render_impact(result: dict[str, Any], warnings: list[str], suggestions: list[str]) -> str:
    from genesis_git.text.quoting import quoted

    lines = [f"impact of {quoted(result['requirement'])} [{result['mode']}]"]
    if not result["files"] and not result["impacts"]:
        text = "nothing in the index matches the requirement"
        if suggestions:
            text += "; close terms: " + ", ".join(suggestions)
        lines.append(text)
    if result["files"]:
        lines.append("files:")
    for i, f in enumerate(result["files"], 1):
        reasons = ", ".join(f"{k} {v:+.3f}" for k, v in f["reasons"].items())
        lines.append(f"{i:>3}. {f['path']}  {f['score']:.3f}  ({reasons})")
    if result["impacts"]:
        lines.append("impacts:")
    for item in result["impacts"]:
        where = (f"{item['path']}:{item['lines'][0]}-{item['lines'][1]}" if item["lines"]
                 else str(item["path"]))
        lines.append(f"  [{item['type']}] {item['kind']} {item['target']}  {where}"
                     + (f": {item['detail']}" if item["detail"] else ""))
        lines.extend(f"      > {ev}" for ev in item["evidence"][:3])
    return "\n".join(with_warnings(lines, warnings))


def render_session(s: dict[str, Any] | None) -> str:
    if s is None:
        return "no active session (session_start starts one; search and impact start one too)"
    types = ", ".join(f"{k} {v}" for k, v in s["types"].items()) or "-"
    return "\n".join([
        f"session {s['id']} ({s['status']})" + (f" {s['name']!r}" if s["name"] else ""),
        f"worktree: {s['worktree']}  branch: {s['branch'] or '(detached)'}",
        f"files: {s['files']} ({s['dirty_files']} uncommitted), {s['chunks']} chunks; {types}",
        f"document: {s['source_doc'] or '-'}",
        f"notes: {s['artifacts']} ({s['unbound_artifacts']} not yet bound to a story)"])


def render_report(report: dict[str, Any]) -> str:
    verb = "started" if report.get("started") else "refreshed"
    skipped = sum(len(v) for v in report["skipped"].values())
    return (f"{verb} {report['session']}: {report['files']} files, {report['hits']} cache hits, "
            f"{report['misses']} misses, {report['chunks']} new chunks, {skipped} skipped")


def render_stories(data: dict[str, Any]) -> str:
    rows = data["stories"]
    if not rows:
        return "no stories yet (a commit whose message names a story id creates one)"
    return "\n".join(f"{r['story_id']}  {r['status']}  {r['commits']} commits  "
                     f"{r['artifacts']} notes  {r['updated_at'][:16]}  {r['title'] or ''}"
                     for r in rows)
