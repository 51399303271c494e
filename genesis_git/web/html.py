"""HTML for the pages of ``genesis web``: text escaped everywhere, the page's frame, links.

Everything shown comes from the ledger, the repository or a query, and a note can come
from anyone on the team, so every value goes through :func:`esc` (``html.escape`` with
quotes, control characters dropped) before it meets markup; markup is only ever built
here, from escaped parts.  The frame is ``templates/page.html``, a ``string.Template``.
"""

from __future__ import annotations

import html
import re
from functools import cache
from importlib import resources
from string import Template
from typing import Any
from urllib.parse import quote, urlencode

from genesis_git import __version__

# C0 and C1 controls but tab and newline: an escape sequence in a note is shown as text
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NAV = (("stories", "/stories", "Stories"), ("impact", "/impact", "Impact"),
       ("search", "/search", "Search"))


def esc(value: Any) -> str:
    """``value`` as HTML text (``None`` is empty): escaped, quotes included, no controls."""
    if value is None:
        return ""
    return html.escape(_CONTROLS.sub("", str(value)), quote=True)


def href(url: str, /, **query: Any) -> str:
    """A local URL with its query, escaped for an attribute (empty values left out)."""
    pairs = [(k, str(v)) for k, v in query.items() if v not in (None, "", False)]
    return esc(url + ("?" + urlencode(pairs) if pairs else ""))


def story_href(story_id: str) -> str:
    return esc("/stories/" + quote(story_id, safe=""))


def file_href(path: str, line: int | None = None) -> str:
    """The file page at a line (``#L12`` scrolls to it)."""
    return href("/file", path=path, line=line or None) + (f"#L{int(line)}" if line else "")


def evidence(line: str) -> str:
    """An evidence line of impact; ``path:line: text`` links to the file at that line."""
    parts = line.split(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[0] and " " not in parts[0]:
        return (f'<a class="mono" href="{file_href(parts[0], int(parts[1]))}">'
                f'{esc(parts[0])}:{esc(parts[1])}</a>: {esc(parts[2].strip())}')
    return esc(line)


def who(created_by: str | None) -> str:
    """``Name <email>`` shown as the name (the e-mail when there is no name)."""
    text = (created_by or "").strip()
    if "<" in text:
        name = text.split("<", 1)[0].strip()
        return name or text.split("<", 1)[1].rstrip(">").strip()
    return text


def when(stamp: str | None) -> str:
    """An ISO time as ``2026-12-01 13:49`` (UTC as recorded)."""
    return (stamp or "")[:16].replace("T", " ")


def badge(status: str) -> str:
    return f'<span class="badge status-{esc(status)}">{esc(status.replace("_", " "))}</span>'


def empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


def warnings(lines: list[str]) -> str:
    return "".join(f'<p class="warn">{esc(w)}</p>' for w in lines)


@cache
def _frame() -> Template:
    text = resources.files("genesis_git.web").joinpath("templates/page.html").read_text("utf-8")
    return Template(text)


def page(title: str, body: str, *, here: str, repo: str, served: str, org: bool = False) -> str:
    """A whole page: the frame around ``body`` (already HTML), ``title`` and ``repo`` as
    text."""
    links = [f'<a href="{url}"{" class=here" if name == here else ""}>{label}</a>'
             for name, url, label in NAV if not org or name == "stories"]
    return _frame().substitute(title=esc(title), body=body, nav="".join(links), repo=esc(repo),
                               version=esc(__version__), served=esc(served))


def error_page(status: int, message: str, *, repo: str, served: str) -> str:
    body = f'<div class="panel"><h1>{status}</h1><p>{esc(message)}</p></div>'
    return page(str(status), body, here="", repo=repo, served=served)
