"""The pages of ``genesis web`` in process: the ASGI application called directly over the
shop example's real repository and store, with a story made by the library and a real
commit; and the server's own checks before it listens."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from genesis_git.app.facade import Genesis  # noqa: E402
from genesis_git.kernel.errors import GenesisError, UsageError  # noqa: E402
from genesis_git.web.app import Site  # noqa: E402
from genesis_git.web.serve import bind, serve  # noqa: E402

from helpers import commit_files  # noqa: E402

HOST = "127.0.0.1:8765"


def call(app: Any, path: str, *, method: str = "GET", host: str = HOST
         ) -> tuple[int, dict[str, str], str]:
    """One request to the ASGI ``app``: ``(status, headers, body)``."""
    sent: list[dict[str, Any]] = []
    target, _, query = path.partition("?")

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": target,
             "raw_path": target.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", host.encode())], "server": ("127.0.0.1", 8765),
             "client": ("127.0.0.1", 50000)}
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, body.decode("utf-8")


@pytest.fixture
def site(shop: Path) -> Any:
    """The shop with STORY-3: a requirement, a decision and a risk (one of them markup), a
    commit of the orders model and the schema."""
    g = Genesis(shop, keep_corpus=True)
    g.sessions.start(doc="docs/req/user-login.md", prebuild=False)
    g.sessions.note("Lock the account after five failures", role="decision")
    g.sessions.note("<img src=x onerror=alert(1)> may leak the e-mail", role="risk")
    commit_files(shop, "STORY-3: lock accounts after failed logins",
                 {"app/lockout.py": "def locked(user):\n    return user.failures >= 5\n"})
    g.stories.rebuild()
    g.stories.bind("STORY-3")
    errors: list[str] = []
    site = Site(g, hosts=frozenset({HOST}), served=f"http://{HOST}/",
                on_error=lambda detail: errors.append(detail) or "the log")
    site.errors = errors  # type: ignore[attr-defined]
    yield site
    g.close()


def test_the_list_and_the_story_page(site: Any) -> None:
    app = site.app()
    status, _, body = call(app, "/stories?q=lock")
    assert status == 200 and 'href="/stories/STORY-3"' in body and "1 of 1 stories" in body
    status, _, body = call(app, "/stories/STORY-3")
    assert status == 200
    assert "<h1>" in body[body.index('id="requirement"'):body.index('id="timeline"')]
    assert "Lock the account after five failures" in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body and "<img src=x" not in body
    assert 'data-type="CODE"' in body and "app/lockout.py" in body
    assert "changed by the story" in body or "not changed by the story" in body
    assert call(app, "/")[0] == 302


def test_impact_search_and_a_file(site: Any) -> None:
    app = site.app()
    status, _, body = call(app, "/impact?q=" + quote("lock the account after failed logins"))
    assert status == 200 and "<svg" in body and 'class="node file"' in body
    status, _, body = call(app, "/impact?story=STORY-3")
    assert status == 200 and "the requirement of" in body
    assert "name a requirement" in call(app, "/impact")[2]
    status, _, body = call(app, "/search?q=login&type=CODE&path=app/**&k=3&mode=lexical")
    assert status == 200 and 'id="hits"' in body
    assert "no results" in call(app, "/search?q=zzzqqqxxx&mode=lexical")[2]
    assert "search the working tree" in call(app, "/search")[2]
    status, _, body = call(app, "/file?path=app/lockout.py&line=2")
    assert status == 200 and '<span class="ln hit" id="L2">' in body
    assert call(app, "/file?path=../outside.txt")[0] == 404
    assert call(app, "/file")[0] == 404
    assert call(app, "/file?path=app/lockout.py&line=two")[0] == 400


def test_errors_hosts_methods_and_assets(site: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    app = site.app()
    assert call(app, "/stories/STORY-30")[0] == 404
    assert call(app, "/stories", host="evil.example")[0] == 403
    assert call(app, "/stories", method="DELETE")[0] == 405
    status, headers, body = call(app, "/static/style.css")
    assert status == 200 and headers["content-type"].startswith("text/css")
    assert "prefers-color-scheme: dark" in body
    assert call(app, "/static/missing.css")[0] == 404

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(site.g.stories, "context", broken)
    status, _, body = call(app, "/stories/STORY-3")
    assert status == 500 and "internal error; see the log" in body and "a bug" not in body
    assert "RuntimeError: a bug" in site.errors[0]


def test_the_checks_before_listening(shop: Path) -> None:
    g = Genesis(shop)
    with pytest.raises(UsageError, match="10.1.2.3 is not a loopback address"):
        serve(g, host="10.1.2.3", port=0)
    with pytest.raises(UsageError, match="--org needs the PostgreSQL mirror"):
        serve(g, port=0, org=True)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(GenesisError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind("127.0.0.1", port)
    with pytest.raises(UsageError, match="cannot bind to 'no-such-host.invalid'"):
        bind("no-such-host.invalid", 0)
    g.close()
