"""The impact page of a story reads its requirement's text only: the Markdown is rendered
for the story's own page, never for a query (the real page, called in process)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from test_web_pages import HOST, call  # noqa: E402  the in-process ASGI call of the page tests

from genesis_git.app.facade import Genesis  # noqa: E402
from genesis_git.web import data  # noqa: E402
from genesis_git.web.app import Site  # noqa: E402

from helpers import commit_files  # noqa: E402


def test_the_impact_page_renders_no_markdown(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Genesis(shop, keep_corpus=True) as g:
        g.sessions.start(doc="docs/req/user-login.md", prebuild=False)
        commit_files(shop, "STORY-3: lock accounts after failed logins",
                     {"app/lockout.py": "def locked(user):\n    return user.failures >= 5\n"})
        g.stories.rebuild()
        g.stories.bind("STORY-3")
        rendered: list[str] = []
        real = data.markdown

        def markdown(text: str) -> Any:
            rendered.append(text)
            return real(text)

        monkeypatch.setattr(data, "markdown", markdown)
        app = Site(g, hosts=frozenset({HOST}), served=f"http://{HOST}/").app()
        status, _, body = call(app, "/impact?story=STORY-3")
        assert status == 200 and "the requirement of" in body
        assert rendered == []
        wanted = data.requirement_text(g.stories.context("STORY-3"),
                                       data.requirement(g, g.stories.context("STORY-3"),
                                                        html=False))
        assert wanted and "lock" in wanted.lower()  # the query is the document's text
        assert rendered == []
        status, _, body = call(app, "/stories/STORY-3")
        assert status == 200 and len(rendered) == 1  # the story's page shows it as HTML
        assert "<h1>" in body[body.index('id="requirement"'):body.index('id="timeline"')]
