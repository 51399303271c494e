"""Stories of the organisation's PostgreSQL mirror: the list and a story's context across
repositories, every item marked with its project."""

from __future__ import annotations

from typing import Any

from genesis_git.render.stories import artifact_body, artifact_lines, artifact_sections
from genesis_git.render.terminal import flat
from genesis_git.text.quoting import quote_path


def list_empty(mirror: str, status: str | None, project: str | None) -> str:
    return (f"no stories in the mirror at {mirror}" +
            (f" with status {status}" if status else "") +
            (f" for project {project}" if project else ""))


def _mark(project: str | None) -> str:
    return f"[{flat(project)}]" if project else "[?]"


def _artifact_line(a: dict[str, Any]) -> str:
    body = artifact_body(a)
    who = f" — {flat(a['created_by'])}" if a.get("created_by") else ""
    return f"{_mark(a['project'])} {body}{who}"


def context_text(ctx: dict[str, Any], mirror: str) -> str:
    s = ctx["story"]
    lines = [f"{s['story_id']}: {flat(s['title']) or '(no title)'}",
             f"status: {s['status']}   created in: {s['project_id']}   updated: {s['updated_at']}",
             f"projects ({len(s['projects'])}): {', '.join(s['projects']) or '-'}",
             f"from the mirror at {mirror}", ""]
    lines.append(f"commits ({len(ctx['commits'])}):")
    lines += [f"  {_mark(c['project'])} {c['short']}  {(c['date'] or '')[:10]}  "
              f"{flat(c['author'])}  {flat(c['subject'])}".rstrip()
              for c in ctx["commits"]] or ["  (none)"]
    lines += ["", f"files ({len(ctx['files'])}, net per project):"]
    lines += [f"  {_mark(f['project'])} {f['change']:<8} {quote_path(f['path'])}"
              for f in ctx["files"]] or ["  (none)"]
    lines += ["", "artifacts:", *artifact_lines(ctx["artifacts"], _artifact_line)]
    lines += ["", "links:"]
    lines += [f"  {_mark(lk['project'])} {lk['type']}: {flat(lk['target'])}" +
              (f"  {flat(lk['description'])}" if lk["description"] else "")
              for lk in ctx["links"]] or ["  (none)"]
    return "\n".join(lines)


def context_markdown(ctx: dict[str, Any]) -> str:
    """The story across repositories as Markdown, made to be given to an LLM."""
    s = ctx["story"]
    out = [f"# {s['story_id']}: {flat(s['title']) or '(no title)'}", "",
           f"- status: {s['status']}",
           f"- projects: {', '.join(f'`{p}`' for p in s['projects']) or '-'}",
           f"- created in: `{s['project_id']}`",
           f"- updated: {s['updated_at']}", ""]
    reqs = ctx["artifacts"].get("requirement", [])
    out.append("## Requirement")
    out += [f"- {_artifact_line(a)}" for a in reqs] or ["- (none recorded)"]
    out += ["", f"## Commits ({len(ctx['commits'])})"]
    out += [f"- {_mark(c['project'])} `{c['short']}` {(c['date'] or '')[:10]} "
            f"{flat(c['author'])}: {flat(c['subject'])}" for c in ctx["commits"]] or ["- (none)"]
    out += ["", f"## Changed files (net per project, {len(ctx['files'])})"]
    out += [f"- {_mark(f['project'])} {f['change']}: `{quote_path(f['path'])}`"
            for f in ctx["files"]] or ["- (none)"]
    out += artifact_sections(ctx["artifacts"], _artifact_line)
    out += ["", "## Links"]
    out += [f"- {_mark(lk['project'])} {lk['type']}: {flat(lk['target'])}" +
            (f" — {flat(lk['description'])}" if lk["description"] else "")
            for lk in ctx["links"]] or ["- (none)"]
    return "\n".join(out) + "\n"


def list_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Plain lines: id, status, commits, artifacts, updated, projects, title (tab-separated)."""
    return [f"{r['story_id']}\t{r['status']}\t{r['commits']}\t{r['artifacts']}\t"
            f"{r['updated_at']}\t{','.join(r['projects'])}\t{flat(r['title'])}" for r in rows]

