"""The story pages as HTML: the list with its filter, and a story's page (the requirement,
the timeline, the net files by artifact type, what a tester should look at).  Every value
is escaped by :func:`~genesis_git.web.html.esc`; the requirement's HTML comes from
:func:`~genesis_git.web.data.markdown`, which keeps no raw HTML."""

from __future__ import annotations

from typing import Any

from genesis_git.kernel.vocabulary import STORY_STATUSES
from genesis_git.web.html import (
    badge,
    empty,
    esc,
    evidence,
    file_href,
    href,
    story_href,
    warnings,
    when,
    who,
)


def matches(row: dict[str, Any], q: str) -> bool:
    """Whether a story's id, title or owner holds every word of ``q`` (any case)."""
    hay = " ".join(str(row.get(k) or "") for k in ("story_id", "title", "created_by",
                                                   "updated_by")).casefold()
    hay += " " + " ".join(row.get("projects") or []).casefold()
    return all(word in hay for word in q.casefold().split())


def story_list(rows: list[dict[str, Any]], *, q: str, status: str, total: int,
               org: str | None = None) -> str:
    """The stories: the filter form (a GET form: it works without JavaScript) and the table."""
    options = "".join(f'<option value="{esc(s)}"{" selected" if s == status else ""}>'
                      f'{esc(s.replace("_", " "))}</option>' for s in STORY_STATUSES)
    form = (f'<form class="filter" method="get" action="/stories" role="search">'
            f'<label>filter<input type="search" name="q" value="{esc(q)}" '
            f'placeholder="id, title, owner"></label>'
            f'<label>status<select name="status"><option value="">any</option>{options}'
            f'</select></label><button type="submit">Filter</button></form>')
    head = ("<tr><th>story</th><th>title</th><th>status</th><th>owner</th><th>last change</th>"
            + ("<th>projects</th>" if org else "")
            + '<th class="num">commits</th><th class="num">notes</th></tr>')
    body = "".join(_story_row(r, org is not None) for r in rows)
    shown = (f'<p class="muted">{len(rows)} of {total} stories'
             + (f" in the mirror at {esc(org)}" if org else "") + "</p>")
    table = (f'<table class="list" id="stories"><thead>{head}</thead><tbody>{body}</tbody></table>'
             if rows else empty("no stories match" if total else
                                "no stories yet: a commit whose message names a story id "
                                "(git commit -m \"STORY-12: …\") creates one"))
    return f'<h1>Stories</h1><div class="panel">{form}{shown}{table}</div>'


def _story_row(r: dict[str, Any], org: bool) -> str:
    owner = who(r.get("created_by"))
    projects = (f'<td>{"".join(f"<span class=tag>{esc(p)}</span>" for p in r.get("projects") or [])}'
                "</td>" if org else "")
    return (f'<tr><td><a href="{story_href(r["story_id"])}">{esc(r["story_id"])}</a></td>'
            f'<td>{esc(r.get("title") or "")}</td><td>{badge(r["status"])}</td>'
            f'<td title="{esc(r.get("created_by"))}">{esc(owner)}</td>'
            f'<td class="mono">{esc(when(r.get("updated_at")))}</td>{projects}'
            f'<td class="num">{int(r.get("commits") or 0)}</td>'
            f'<td class="num">{int(r.get("artifacts") or 0)}</td></tr>')


def story_page(ctx: dict[str, Any], req: dict[str, Any] | None, events: list[dict[str, Any]],
               groups: dict[str, list[dict[str, Any]]], look: dict[str, Any] | None,
               *, org: str | None = None) -> str:
    """A story: its header, the requirement beside the timeline, the files, the tester's
    list (``look`` is ``None`` for the organisation's view, which has no index)."""
    s = ctx["story"]
    projects = s.get("projects") or []
    meta = [badge(s["status"]), f'<span>owner {esc(who(s.get("created_by")))}</span>',
            f'<span>created {esc(when(s.get("created_at")))}</span>',
            f'<span>last change {esc(when(s.get("updated_at")))}</span>',
            f'<span>{len(ctx["commits"])} commits · {len(ctx["files"])} files</span>']
    if projects:
        meta.append("<span>projects " + "".join(f"<span class=tag>{esc(p)}</span>"
                                                 for p in projects) + "</span>")
    head = (f'<p class="muted"><a href="/stories">Stories</a> / {esc(s["story_id"])}</p>'
            f'<h1 id="story-title">{esc(s["story_id"])}: {esc(s.get("title") or "(no title)")}</h1>'
            f'<div class="meta">{"".join(meta)}</div>')
    return (f'<section class="story" data-story="{esc(s["story_id"])}">{head}'
            f'<div class="grid spaced">'
            f'<section class="panel" id="requirement">{_requirement(req)}</section>'
            f'<section class="panel" id="timeline"><h2>Timeline</h2>{_timeline(events)}</section>'
            f'</div>'
            f'<section class="panel" id="files"><h2>Files changed (net), by artifact type</h2>'
            f'{_groups(groups, local=org is None)}</section>'
            + (f'<section class="panel" id="look-at"><h2>What a tester should look at</h2>'
               f'{_look(look)}</section>' if look is not None else "")
            + "</section>")


def _requirement(req: dict[str, Any] | None) -> str:
    if req is None:
        return "<h2>Requirement</h2>" + empty(
            "no requirement document recorded (genesis session start --doc PATH names one)")
    where = esc(req["path"] or "") + (f" § {esc(req['section'])}" if req.get("section") else "")
    title = f'<h2>Requirement <span class="muted mono">{where}</span></h2>'
    if req.get("html") is None:
        return title + empty("the document is not in this clone (git fetch brings it)")
    return f'{title}<div class="doc">{req["html"]}</div>'


def _timeline(events: list[dict[str, Any]]) -> str:
    if not events:
        return empty("nothing recorded yet")
    return '<ol class="timeline">' + "".join(_event(e) for e in events) + "</ol>"


def _event(e: dict[str, Any]) -> str:
    kind = e["kind"]
    label = {"commit": "commit", "link": f"link · {e.get('link_type', '')}"}.get(
        kind, kind.replace("_", " "))
    proj = f'<span class="tag">{esc(e["project"])}</span>' if e.get("project") else ""
    if kind == "commit":
        state = f' <span class="tag">{esc(e["state"])}</span>' if e.get("state") else ""
        text = f'<span class="mono">{esc(e["short"])}</span> {esc(e["text"])}{state}'
    elif kind == "link":
        text = f'<span class="mono">{esc(e["target"])}</span>' + (
            f" — {esc(e['text'])}" if e["text"] else "")
    else:
        where = ""
        if e.get("path"):
            where = f'<a class="mono" href="{file_href(e["path"])}">{esc(e["path"])}</a>'
            if e.get("section"):
                where += f" § {esc(e['section'])}"
        text = esc(e["text"]) + (f" ({where})" if where and e["text"] else where)
        if e.get("private"):
            text += ' <span class="tag">private</span>'
    by = who(e.get("who"))
    stamp = esc(when(e.get("at")))
    return (f'<li class="k-{esc(kind)} event" data-kind="{esc(kind)}"><div class="kind">{esc(label)}'
            f'{proj}</div><div class="text">{text}</div>'
            f'<div class="who">{esc(by) + " · " if by else ""}{stamp}</div></li>')


def _groups(groups: dict[str, list[dict[str, Any]]], *, local: bool) -> str:
    if not groups:
        return empty("no files changed")
    out = []
    for kind, files in groups.items():
        rows = "".join(
            f'<li><span class="chg chg-{esc(f["change"])}">{esc(f["change"])}</span>'
            + (f'<a class="mono" href="{file_href(f["path"])}">{esc(f["path"])}</a>'
               if local and f["change"] != "removed" else f'<span class="mono">{esc(f["path"])}</span>')
            + (f'<span class="tag">{esc(f["project"])}</span>' if f.get("project") else "")
            + "</li>" for f in files)
        out.append(f'<div class="group" data-type="{esc(kind)}"><h3>{esc(kind)} '
                   f'({len(files)})</h3><ul>{rows}</ul></div>')
    return '<div class="groups">' + "".join(out) + "</div>"


def _look(look: dict[str, Any] | None) -> str:
    assert look is not None
    if not look["items"]:
        return warnings(look["warnings"]) + empty("the impact found nothing to point at")
    rows = []
    for item in look["items"]:
        tags = "".join(f'<span class="tag">from the {esc(o)}</span>' for o in item["origins"])
        tags += ('<span class="tag">changed by the story</span>' if item["changed"]
                 else '<span class="tag">not changed by the story</span>')
        line = item["lines"][0] if item["lines"] else None
        ev = "".join(f"<li>{evidence(x)}</li>" for x in item["evidence"][:3])
        rows.append(f'<li><a class="mono" href="{file_href(item["path"], line)}">'
                    f'{esc(item["target"])}</a> <span class="muted">{esc(item["kind"])}, '
                    f'{esc(item["type"])}</span>{tags}<div class="why">{esc(item["detail"])}</div>'
                    f'<ul class="evidence">{ev}</ul></li>')
    graph = (f'<p><a href="{href("/impact", story=look["story"])}">The impact graph of the '
             f'requirement &rarr;</a></p>' if look.get("story") else "")
    return (warnings(look["warnings"]) + '<ul class="plain looks">' + "".join(rows) + "</ul>"
            + graph)
