"""Stories of the local ledger: the list, a record, a story's context (text and Markdown),
the answers of set, link, bind and rebuild, and the MCP tools' short text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from genesis_git.render.terminal import Paint, clean, flat, no_paint
from genesis_git.text.quoting import quote_path


def list_empty(status: str | None) -> str:
    return ("no stories" + (f" with status {status}" if status else "") +
            " (commit with a story id in the subject, or run `genesis story rebuild`)")


def list_lines(rows: list[dict[str, Any]], paint: Paint = no_paint) -> list[str]:
    """The stories for a pipe: tab-separated, one header line."""
    return ["story\tstatus\tcommits\tnotes\tupdated\ttitle",
            *(f"{paint(r['story_id'], 'id')}\t{r['status']}\t{r['commits']}\t{r['artifacts']}\t"
              f"{r['updated_at']}\t{flat(r['title'])}" for r in rows)]


def list_short(data: dict[str, Any]) -> str:
    """The MCP tool's text for the list of stories."""
    rows = data["stories"]
    if not rows:
        return "no stories yet (a commit whose message names a story id creates one)"
    return "\n".join(f"{r['story_id']}  {r['status']}  {r['commits']} commits  "
                     f"{r['artifacts']} notes  {r['updated_at'][:16]}  {flat(r['title'])}"
                     for r in rows)


def show_lines(rec: dict[str, Any]) -> list[str]:
    """A story's record, its counts and its links."""
    arts = ", ".join(f"{k} {v}" for k, v in rec["artifacts"].items()) or "none"
    return [f"{rec['story_id']}: {flat(rec['title']) or '(no title)'}",
            f"status:   {rec['status']}",
            f"baseline: {rec['baseline_commit_sha'] or '-'}",
            f"created:  {rec['created_at']}  {flat(rec['created_by'])}".rstrip(),
            f"updated:  {rec['updated_at']}",
            f"commits:  {rec['commits']}   files touched: {rec['files_touched']}",
            f"artifacts: {arts}",
            *(f"link:     {_link(lk)}" for lk in rec["links"])]


def _link(lk: dict[str, Any], sep: str = "  ") -> str:
    """A link on one line: its type, target and description (as data)."""
    return (f"{lk['type']}: {flat(lk['target'])}"
            + (f"{sep}{flat(lk['description'])}" if lk["description"] else ""))


def set_line(rec: dict[str, Any], created: bool) -> str:
    return (f"{'created' if created else 'updated'} {rec['story_id']}: {rec['status']}, "
            f"{flat(rec['title']) or '(no title)'}")


def link_line(story_id: str, res: dict[str, Any]) -> str:
    verb = "linked" if res["added"] else "already linked"
    extra = f" ({res['files']} changed files)" if res["type"] == "commit" and res["added"] else ""
    return f"{verb}: {story_id} -> {res['type']} {flat(res['target'])}{extra}"


def bind_line(story_id: str, res: dict[str, Any]) -> str:
    return (f"bound {res['notes']} note(s) of {', '.join(res['sessions']) or 'no session'} "
            f"to {story_id}")


def rebuild_lines(res: dict[str, Any]) -> list[str]:
    """What a rebuild found, added, pruned, skipped and cleared."""
    out = []
    if res.get("moved_aside"):
        kept = ", ".join(f"{n} {t}" for t, n in res["salvaged"].items() if n > 0) or "nothing"
        lost = [t for t, n in res["salvaged"].items() if n < 0]
        out.append(f"moved the old store to {res['moved_aside']}; kept from it: {kept}" +
                   (f"; unreadable: {', '.join(lost)}" if lost else ""))
    out.append(f"scanned {res['commits_scanned']} commits, {res['story_commits']} name a story: "
               f"{len(res['stories'])} stories ({len(res['created'])} new), "
               f"{res['links_added']} commit links and {res['files_added']} file changes added, "
               f"{res['notes_bound']} notes bound")
    if res["unreachable"]:
        out.append(f"{len(res['unreachable'])} linked commits are no longer reachable "
                   "(`genesis story rebuild --prune` drops them)")
    if res.get("not_fetched"):
        out.append(f"{len(res['not_fetched'])} linked commits are not fetched here "
                   "(`git fetch` brings them)")
    if res["pruned"]:
        out.append(f"pruned {res['pruned']} unreachable commits")
    if res["skipped"]:
        shown = ", ".join(f"{k} ({v})" for k, v in list(res["skipped"].items())[:8])
        more = len(res["skipped"]) - 8
        out.append(f"skipped {len(res['skipped'])} ids that never bind (story.prefixes, "
                   f"story.ignore and the built-in list): {shown}"
                   + (f" and {more} more" if more > 0 else ""))
    if res["failures_cleared"]:
        out.append(f"cleared {res['failures_cleared']} logged hook failures")
    return out


# -- a story's context ---------------------------------------------------------------

def _gone(c: dict[str, Any]) -> str:
    if c.get("reachable") is not False:
        return ""
    if c.get("fetched") is False:
        return "  (not fetched here: `git fetch` brings it)"
    return "  (unreachable: rewritten or dropped)"


def artifact_body(a: dict[str, Any]) -> str:
    """An artifact: its summary (a note of several lines keeps them) and where it is (the
    path quoted as git does, the section as data)."""
    where = quote_path(a["path"]) if a["path"] else ""
    if a["section"]:
        where += f" § {flat(a['section'])}"
    text = "\n".join(line.rstrip() for line in clean(a["summary"]).strip("\n").splitlines())
    if where and text:
        return f"{text} ({where})"
    return text or where or flat(a["doc_id"])


def artifact_lines(artifacts: dict[str, list[dict[str, Any]]],
                   line: Callable[[dict[str, Any]], str]) -> list[str]:
    """The artifacts of a story as plain lines, grouped by role (``line`` renders one)."""
    out: list[str] = []
    for role, items in artifacts.items():
        out.append(f"  {role}:")
        out += [f"    - {_indent(line(a), '      ')}" for a in items]
    return out or ["  (none)"]


def artifact_sections(artifacts: dict[str, list[dict[str, Any]]],
                      line: Callable[[dict[str, Any]], str]) -> list[str]:
    """One Markdown section per role but the requirement (which opens the page)."""
    out: list[str] = []
    for role, items in artifacts.items():
        if role != "requirement":
            out += ["", f"## {role.replace('_', ' ').capitalize()}",
                    *(f"- {_indent(line(a), '  ')}" for a in items)]
    return out


def _indent(text: str, pad: str) -> str:
    """The lines after the first of ``text`` indented by ``pad`` (a list item's own lines)."""
    return text.replace("\n", "\n" + pad)


def _artifact_line(a: dict[str, Any]) -> str:
    line = artifact_body(a)
    who = _who(a.get("created_by"))
    if who:
        when = (a.get("created_at") or "")[:16].replace("T", " ")
        line += f" — {who}" + (f", {when}" if when else "")
    if a.get("private"):
        line += " [private]"
    return line


def _who(created_by: str | None) -> str:
    """``Name <email>`` shown as the name (the e-mail when there is no name)."""
    text = flat(created_by)
    if "<" in text:
        name = text.split("<", 1)[0].strip()
        return name or text.split("<", 1)[1].rstrip(">").strip()
    return text


def context_text(ctx: dict[str, Any]) -> str:
    """A story's context as plain text: record, commits, net files, artifacts, links, code."""
    s = ctx["story"]
    lines = [f"{s['story_id']}: {flat(s['title']) or '(no title)'}",
             f"status: {s['status']}   baseline: {(s['baseline_commit_sha'] or '-')[:10]}   "
             f"updated: {s['updated_at']}", ""]
    lines.append(f"commits ({len(ctx['commits'])}):")
    lines += [f"  {c['short']}  {(c['date'] or '')[:10]}  {flat(c['author'])}  "
              f"{flat(c['subject'])}{_gone(c)}"
              for c in ctx["commits"]] or ["  (none)"]
    lines += ["", f"files ({len(ctx['files'])}, net):"]
    lines += [f"  {f['change']:<8} {quote_path(f['path'])}" for f in ctx["files"]] or ["  (none)"]
    lines += ["", "artifacts:", *artifact_lines(ctx["artifacts"], _artifact_line)]
    lines += ["", "links:"]
    lines += [f"  {_link(lk)}" for lk in ctx["links"]] or ["  (none)"]
    if "code" in ctx:
        lines += ["", f"relevant code ({len(ctx['code'])}):"]
        lines += [f"  {quote_path(h['path'])}:{h['start_line']}-{h['end_line']}  {h['score']}"
                  for h in ctx["code"]] or ["  (none)"]
    return "\n".join(lines)


def _longest_backticks(text: str) -> int:
    best = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        best = max(best, run)
    return best


def context_markdown(ctx: dict[str, Any]) -> str:
    """The context as Markdown, made to be given to an LLM."""
    s = ctx["story"]
    out = [f"# {s['story_id']}: {flat(s['title']) or '(no title)'}", "",
           f"- status: {s['status']}",
           f"- baseline commit: {s['baseline_commit_sha'] or '-'}",
           f"- updated: {s['updated_at']}", ""]
    reqs = ctx["artifacts"].get("requirement", [])
    out.append("## Requirement")
    out += [f"- {_indent(_artifact_line(a), '  ')}" for a in reqs] or ["- (none recorded)"]
    out += ["", f"## Commits ({len(ctx['commits'])})"]
    out += [f"- `{c['short']}` {(c['date'] or '')[:10]} {flat(c['author'])}: "
            f"{flat(c['subject'])}{_gone(c)}"
            for c in ctx["commits"]] or ["- (none)"]
    out += ["", f"## Changed files (net, {len(ctx['files'])})"]
    out += [f"- {f['change']}: `{quote_path(f['path'])}`" for f in ctx["files"]] or ["- (none)"]
    out += artifact_sections(ctx["artifacts"], _artifact_line)
    out += ["", "## Links"]
    out += [f"- {_link(lk, ' — ')}" for lk in ctx["links"]] or ["- (none)"]
    if "code" in ctx:
        out += ["", f"## Relevant code ({len(ctx['code'])})"]
        for h in ctx["code"]:
            lang = Path(h["path"]).suffix.lstrip(".")
            fence = "`" * max(3, _longest_backticks(h["text"]) + 1)
            out += ["", f"### `{quote_path(h['path'])}` lines {h['start_line']}-{h['end_line']}",
                    "", f"{fence}{lang}", clean(h["text"]).rstrip(), fence]
    return "\n".join(out) + "\n"
