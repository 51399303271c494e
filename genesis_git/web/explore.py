"""The impact, search and file pages as HTML.  Every value is escaped by
:func:`~genesis_git.web.html.esc`; every result links to its file at its line."""

from __future__ import annotations

from typing import Any

from genesis_git.kernel.vocabulary import ARTIFACT_TYPES, SEARCH_MODES
from genesis_git.web.graph import impact_svg
from genesis_git.web.html import empty, esc, evidence, file_href, href, story_href, warnings


def impact_form(q: str, story: str = "") -> str:
    hidden = f'<input type="hidden" name="story" value="{esc(story)}">' if story else ""
    return (f'<form class="filter" method="get" action="/impact" role="search">'
            f'<label>requirement<input class="wide" type="search" name="q" value="{esc(q)}" '
            f'placeholder="add a discount code to orders"></label>{hidden}'
            f'<button type="submit">Investigate</button></form>')


def impact_page(q: str, result: dict[str, Any] | None, notes: list[str], *,
                story: str = "") -> str:
    """The form, then the picture, the ranked files and the symbols and fields."""
    head = "<h1>Impact</h1>"
    if story:
        head += (f'<p class="muted">the requirement of <a href="{story_href(story)}">'
                 f'{esc(story)}</a></p>')
    out = head + f'<div class="panel">{impact_form("" if story else q, story)}'
    out += warnings(notes)
    if result is None:
        return out + empty("name a requirement: its files, symbols and fields are ranked, "
                           "with the evidence") + "</div>"
    if not result["files"] and not result["impacts"]:
        return out + empty("nothing matched this requirement") + "</div>"
    out += f'<div class="graph" id="graph">{impact_svg(result)}</div></div>'
    files = "".join(
        f'<tr><td class="num">{i}</td><td><a class="mono" href="{file_href(f["path"])}">'
        f'{esc(f["path"])}</a></td><td class="num">{f["score"]:.3f}</td>'
        f'<td class="muted">{esc(_reasons(f["reasons"]))}</td></tr>'
        for i, f in enumerate(result["files"], 1))
    out += ('<div class="panel" id="files"><h2>Files, ranked</h2><table class="list"><thead><tr>'
            '<th class="num">#</th><th>file</th><th class="num">score</th><th>signals</th></tr>'
            f'</thead><tbody>{files}</tbody></table></div>')
    impacts = "".join(_impact(i) for i in result["impacts"])
    out += (f'<div class="panel" id="impacts"><h2>Files, symbols and fields, with evidence</h2>'
            f'<ul class="plain looks">{impacts}</ul></div>')
    return out


def _reasons(reasons: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])
                     if v)


def _impact(i: dict[str, Any]) -> str:
    line = i["lines"][0] if i["lines"] else None
    ev = "".join(f"<li>{evidence(x)}</li>" for x in i["evidence"])
    return (f'<li><a class="mono" href="{file_href(i["path"], line)}">{esc(i["target"])}</a> '
            f'<span class="muted">{esc(i["kind"])}, {esc(i["type"])}, score '
            f'{i["score"]:.3f}</span><div class="why">{esc(i["detail"])}</div>'
            f'<ul class="evidence">{ev}</ul></li>')


def search_form(f: dict[str, Any]) -> str:
    """The search's filters, those of ``genesis search``."""
    types = "".join(f'<label class="check"><input type="checkbox" name="type" value="{t}"'
                    f'{" checked" if t in f["types"] else ""}>{t}</label>' for t in ARTIFACT_TYPES)
    modes = "".join(f'<option value="{m}"{" selected" if m == f["mode"] else ""}>{m}</option>'
                    for m in SEARCH_MODES)
    return (f'<form class="filter" method="get" action="/search" role="search">'
            f'<label>query<input class="wide" type="search" name="q" value="{esc(f["q"])}" '
            f'placeholder="order total"></label>'
            f'<fieldset class="types"><legend>type</legend>{types}</fieldset>'
            f'<label>path<input name="path" value="{esc(",".join(f["paths"]))}" '
            f'placeholder="app/**"></label>'
            f'<label>component<input name="component" value="{esc(f["component"])}"></label>'
            f'<label>owner<input name="owner" value="{esc(f["owner"])}"></label>'
            f'<label>mode<select name="mode"><option value="">default</option>{modes}'
            f'</select></label>'
            f'<label>max staleness<input name="max_staleness" size="4" '
            f'value="{esc(f["max_staleness"])}"></label>'
            f'<label>k<input name="k" size="3" value="{esc(f["k"])}"></label>'
            f'<button type="submit">Search</button></form>')


def search_page(f: dict[str, Any], hits: list[dict[str, Any]] | None, notes: list[str]) -> str:
    out = f'<h1>Search</h1><div class="panel">{search_form(f)}{warnings(notes)}'
    if hits is None:
        return out + empty("search the working tree: BM25 and vectors, as genesis search") + "</div>"
    if not hits:
        return out + empty("no results") + "</div>"
    rows = []
    for h in hits:
        where = f'{h["path"]}:{h["start_line"]}' + (
            f'-{h["end_line"]}' if h["end_line"] != h["start_line"] else "")
        label = " ".join(x for x in (h.get("symbol"), h.get("section")) if x)
        rows.append(f'<li><a class="mono" href="{file_href(h["path"], h["start_line"])}">'
                    f'{esc(where)}</a> <span class="tag">{esc(h["type"])}</span>'
                    f'<span class="muted"> {esc(label)} · score {h["score"]:.3f}</span>'
                    f'<div class="hit-text mono">{esc(h["text"][:600])}</div></li>')
    return out + f'<ul class="plain looks" id="hits">{"".join(rows)}</ul></div>'


def file_page(path: str, text: str | None, line: int | None, *, truncated: bool) -> str:
    """A tracked file with numbered lines; ``#L12`` (and ``line``) marks a line."""
    crumbs = f'<h1 class="mono">{esc(path)}</h1>'
    if text is None:
        return crumbs + empty("git does not track this file here")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = "".join(
        f'<span class="ln{" hit" if n == line else ""}" id="L{n}"><a href="#L{n}">{n}</a>'
        f'{esc(t)}</span>' for n, t in enumerate(lines, 1))
    note = ('<p class="warn">the file is longer than what is shown here</p>' if truncated else "")
    search = href("/search", q=path.rsplit("/", 1)[-1])
    return (crumbs + f'<p class="muted">{len(lines)} lines · <a href="{search}">search for '
            f'its name</a></p>{note}<pre class="source">{body}</pre>')
