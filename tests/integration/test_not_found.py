"""A thing that does not exist is its own error class, ``NotFound``: the library raises it
for an unknown story, session, note or file; the command line keeps exit code 1 for it;
the pages of ``genesis web`` answer it with 404, by its class and never by its words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from genesis_git.app.facade import Genesis
from genesis_git.cli.main import app as cli
from genesis_git.kernel.errors import (
    EnvironmentProblem,
    ExitCode,
    GenesisError,
    NotFound,
    UsageError,
)

from helpers import commit_files

runner = CliRunner()


@pytest.fixture
def g(shop: Path) -> Any:
    g = Genesis(shop)
    g.sessions.start(prebuild=False)
    g.sessions.note("Lock the account after five failures", role="decision")
    commit_files(shop, "STORY-3: lock accounts", {"app/lockout.py": "def locked(u):\n    return 1\n"})
    g.stories.rebuild()
    yield g
    g.close()


def test_the_library_raises_not_found_for_what_does_not_exist(g: Any) -> None:
    with pytest.raises(NotFound, match=r"^unknown story 'STORY-4' \(closest known: STORY-3\)$"):
        g.stories.context("STORY-4")
    with pytest.raises(NotFound, match="^unknown session 'nope'"):
        g.sessions.notes("nope")
    with pytest.raises(NotFound, match=r"^no note #999 in this clone"):
        g.sessions.retract("#999")
    with pytest.raises(NotFound, match="^app/nowhere.py: not a file of this session"):
        g.symbols.outline("app/nowhere.py")
    # a not-found is a user's error: exit code 1, as the exit-code table says
    assert NotFound("x").exit_code == ExitCode.USER_ERROR == 1
    # bad input is not a not-found
    with pytest.raises(UsageError) as bad:
        g.sessions.retract("twelve")
    assert not isinstance(bad.value, NotFound)


def test_the_command_line_keeps_exit_code_1(g: Any) -> None:
    res = runner.invoke(cli, ["story", "show", "STORY-4"])
    assert (res.exit_code, res.output.strip()) == (
        1, "genesis: error: unknown story 'STORY-4' (closest known: STORY-3)")
    res = runner.invoke(cli, ["session", "artifacts", "--session", "nope"])
    assert res.exit_code == 1 and res.output.startswith("genesis: error: unknown session 'nope'")


def _page(g: Any, path: str, raised: BaseException | None = None,
          monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    pytest.importorskip("starlette")
    from test_web_pages import HOST, call  # the in-process ASGI call of the page tests

    from genesis_git.web.app import Site

    if raised is not None and monkeypatch is not None:
        def fail(*args: object, **kwargs: object) -> None:
            raise raised

        monkeypatch.setattr(g.stories, "context", fail)
    site = Site(g, hosts=frozenset({HOST}), served=f"http://{HOST}/")
    status, _, body = call(site.app(), path)
    return status, body


def test_the_pages_choose_the_status_by_the_error_class(g: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    status, body = _page(g, "/stories/STORY-4")
    assert status == 404 and "unknown story &#x27;STORY-4&#x27;" in body
    assert _page(g, "/impact?story=STORY-4")[0] == 404
    # the words do not decide: a not-found worded otherwise is 404, a user's error that
    # happens to start with "unknown story" is 400
    assert _page(g, "/stories/STORY-3", NotFound("nothing here"), monkeypatch)[0] == 404
    status, body = _page(g, "/stories/STORY-3", GenesisError("unknown story text, but bad "
                                                              "input"), monkeypatch)
    assert status == 400 and "unknown story text, but bad input" in body
    assert _page(g, "/stories/STORY-3", UsageError("bad"), monkeypatch)[0] == 400
    assert _page(g, "/stories/STORY-3", EnvironmentProblem("git is missing"),
                 monkeypatch)[0] == 503
    from genesis_git.providers.embedders import EmbeddingError

    assert _page(g, "/stories/STORY-3", EmbeddingError("the endpoint is unreachable"),
                 monkeypatch)[0] == 503
    assert _page(g, "/stories/STORY-3", KeyError("a bug"), monkeypatch)[0] == 500
