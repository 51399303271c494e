"""``genesis web``'s pages as an ASGI application (Starlette): read-only, over the same
:class:`~genesis_git.app.facade.Genesis` as the command line and the MCP server.

Only ``GET`` and ``HEAD`` are answered (anything else is 405: nothing writes); a request
whose ``Host`` is not a name the server was started for is refused with 403, so a page on
another site cannot reach this one through DNS rebinding.  Every handler runs on the
event loop's thread, one at a time: the store is one SQLite connection and a local
reader needs no more.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from genesis_git.kernel.errors import EnvironmentProblem, GenesisError, MirrorError, NotFound
from genesis_git.web import data, explore, pages
from genesis_git.web.html import error_page, page

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' data:; form-action 'self'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
READS = ("GET", "HEAD")


class Site:
    """The pages of one repository (or, with ``org``, of the organisation's mirror)."""

    def __init__(self, g: Genesis, *, hosts: frozenset[str] | None, served: str,
                 org: bool = False, on_error: Callable[[str], str] | None = None):
        self.g = g
        self.hosts = hosts  # None: any Host (a public bind the user asked for)
        self.served = served
        self.org = org
        self.on_error = on_error
        self.repo = g.workspace.repo.root.name

    # -- the frame --------------------------------------------------------------------------

    def html(self, title: str, body: str, here: str, status: int = 200) -> Response:
        text = page(title, body, here=here, repo=self.repo, served=self.served, org=self.org)
        return HTMLResponse(text, status_code=status)

    def error(self, status: int, message: str) -> Response:
        return HTMLResponse(error_page(status, message, repo=self.repo, served=self.served),
                            status_code=status)

    # -- the pages --------------------------------------------------------------------------

    def stories(self, request: Request) -> Response:
        q = request.query_params.get("q", "").strip()
        status = request.query_params.get("status", "").strip()
        mirror = None
        if self.org:
            got = self.g.mirror.stories(status=status or None)
            rows, mirror = got["stories"], str(got["mirror"])
        else:
            rows = self.g.stories.all(status or None)
        shown = [r for r in rows if pages.matches(r, q)] if q else rows
        body = pages.story_list(shown, q=q, status=status, total=len(rows), org=mirror)
        return self.html("Stories", body, "stories")

    def story(self, request: Request) -> Response:
        story_id = request.path_params["story_id"]
        if self.org:
            ctx = self.g.mirror.story(story_id)
            events = data.timeline(ctx)
            reqs = ctx["artifacts"].get("requirement") or []
            req = ({"path": reqs[-1]["path"], "section": reqs[-1]["section"], "html": None}
                   if reqs else None)
            body = pages.story_page(ctx, req, events, data.files_by_type(None, ctx["files"]),
                                    None, org=str(ctx.get("mirror")))
        else:
            ctx = self.g.stories.context(story_id)
            req = data.requirement(self.g, ctx)
            look = data.look_at(self.g, ctx, req)
            body = pages.story_page(ctx, req, data.timeline(ctx),
                                    data.files_by_type(self.g, ctx["files"]), look)
        return self.html(story_id, body, "stories")

    def impact(self, request: Request) -> Response:
        q = request.query_params.get("q", "").strip()
        story = request.query_params.get("story", "").strip()
        notes: list[str] = []
        if story and not q:
            ctx = self.g.stories.context(story)
            q = data.requirement_text(ctx, data.requirement(self.g, ctx, html=False))
        result = None
        if q:
            try:
                got = self.g.impact.run(q, self.g.impact.options(k=20), use_rag=False)
                result, notes = got.result, list(got.warnings)
            except GenesisError as exc:
                notes.append(str(exc))
        return self.html("Impact", explore.impact_page(q, result, notes, story=story), "impact")

    def search(self, request: Request) -> Response:
        qp = request.query_params
        paths = [p.strip() for v in qp.getlist("path") for p in v.split(",") if p.strip()]
        text = {name: qp.get(name, "").strip()
                for name in ("q", "component", "owner", "mode", "k", "max_staleness")}
        form: dict[str, Any] = {**text, "types": [t.upper() for t in qp.getlist("type")],
                                "paths": paths}
        hits, notes = None, []
        if text["q"]:
            try:
                opts = self.g.search.options(
                    k=_number(text["k"], int, "k"), mode=text["mode"] or None,
                    types=tuple(form["types"]), paths=tuple(paths),
                    component=text["component"] or None, owner=text["owner"] or None,
                    max_staleness=_number(text["max_staleness"], float, "max staleness"))
                result = self.g.search.run(text["q"], opts)
                hits, notes = [h.as_dict() for h in result.hits], list(result.warnings)
            except GenesisError as exc:
                notes.append(str(exc))
        return self.html("Search", explore.search_page(form, hits, notes), "search")

    def file(self, request: Request) -> Response:
        path = request.query_params.get("path", "")
        line = _number(request.query_params.get("line", ""), int, "line")
        raw = data.tracked_file(self.g, path) if path else None
        if raw is None:
            return self.html(path or "file", explore.file_page(path, None, None, truncated=False),
                             "search", status=404)
        text = raw.decode("utf-8", "replace")
        truncated = len(raw) >= 2_000_000
        return self.html(path, explore.file_page(path, text, line, truncated=truncated), "search")

    # -- the application --------------------------------------------------------------------

    def guarded(self, handler: Callable[[Request], Response]
                ) -> Callable[[Request], Awaitable[Response]]:
        """``handler`` with the one error gate of the pages: a user's error is its page, with
        the status of its class (:func:`status`); a bug is 500 and its traceback goes to the
        log."""
        async def endpoint(request: Request) -> Response:
            try:
                return handler(request)
            except GenesisError as exc:
                return self.error(status(exc), str(exc))
            except Exception:  # a bug: one line for the reader, the traceback in the log
                detail = traceback.format_exc()
                where = self.on_error(detail) if self.on_error else ""
                sys.stderr.write(f"genesis web: internal error on {request.url.path}"
                                 f"{'; see ' + where if where else ''}\n")
                return self.error(500, "internal error" + (f"; see {where}" if where else ""))

        return endpoint

    def app(self) -> Any:
        routes = [
            Route("/", lambda request: RedirectResponse("/stories", status_code=302)),
            Route("/stories", self.guarded(self.stories)),
            Route("/stories/{story_id:path}", self.guarded(self.story)),
            Route("/static/{name}", static),
        ]
        if not self.org:
            routes += [Route("/impact", self.guarded(self.impact)),
                       Route("/search", self.guarded(self.search)),
                       Route("/file", self.guarded(self.file))]
        return _Guard(Starlette(routes=routes), self.hosts)


def status(exc: GenesisError) -> int:
    """The HTTP status of a user's error, by its class: 404 for a thing that does not exist
    (an unknown story), 503 when the machine lacks what the page needs (git, the mirror),
    400 for the rest (bad input)."""
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, (EnvironmentProblem, MirrorError)):
        return 503
    return 400


def _number(text: str, kind: type, name: str) -> Any:
    from genesis_git.kernel.errors import UsageError

    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise UsageError(f"{name} must be a number, not {text!r}") from None


async def static(request: Request) -> Response:
    """An asset shipped in the package (``genesis_git/web/static``)."""
    name = request.path_params["name"]
    folder = resources.files("genesis_git.web").joinpath("static")
    suffix = name[name.rfind("."):] if "." in name else ""
    known = {entry.name for entry in folder.iterdir()}
    if name not in known or suffix not in STATIC_TYPES:
        return PlainTextResponse("not found\n", status_code=404)
    body = folder.joinpath(name).read_bytes()
    return Response(body, media_type=STATIC_TYPES[suffix],
                    headers={"cache-control": "max-age=300"})


class _Guard:
    """Before the pages: the ``Host`` check, reads only, and the security headers."""

    def __init__(self, inner: Any, hosts: frozenset[str] | None):
        self.inner = inner
        self.hosts = hosts

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if self.hosts is not None and host not in self.hosts:
            shown = host.encode("ascii", "backslashreplace").decode()[:80]
            reply: Response = PlainTextResponse(
                f"refused: Host {shown!r} is not the name this server was started for\n",
                status_code=403)
        elif scope["method"] not in READS:
            reply = PlainTextResponse("genesis web only reads: GET and HEAD\n", status_code=405,
                                      headers={"allow": ", ".join(READS)})
        else:
            await self.inner(scope, receive, _with_headers(send))
            return
        await reply(scope, receive, _with_headers(send))


def _with_headers(send: Any) -> Any:
    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []),
                                              *((k.encode(), v.encode())
                                                for k, v in SECURITY_HEADERS.items()
                                                if k != "cache-control" or not _has(message, k))]}
        await send(message)

    return sending


def _has(message: dict[str, Any], name: str) -> bool:
    return any(k.decode("latin-1").lower() == name for k, _ in message.get("headers", []))
