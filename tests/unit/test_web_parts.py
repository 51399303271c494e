"""The pure parts of ``genesis web``: escaping, links, the Host names, the timeline's order,
the requirement's Markdown, the graph, the guard in front of the pages."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")

from genesis_git.web import data, graph, pages  # noqa: E402
from genesis_git.web.html import esc, evidence, file_href, href, story_href, who  # noqa: E402
from genesis_git.web.serve import allowed_hosts, is_loopback  # noqa: E402


def test_text_is_escaped_and_loses_its_control_characters() -> None:
    assert esc('<a href="x">\'&\x1b[31m\x07') == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;[31m"
    assert esc(None) == "" and esc("tab\tand\nline") == "tab\tand\nline"


def test_links_carry_their_query_escaped() -> None:
    assert href("/stories", q="a&b c", status="") == "/stories?q=a%26b+c"
    assert file_href("docs/a b&c.md", 12) == "/file?path=docs%2Fa+b%26c.md&amp;line=12#L12"
    assert file_href("x.py") == "/file?path=x.py"
    assert story_href("ST/1?x") == "/stories/ST%2F1%3Fx"


def test_evidence_links_a_path_and_line_and_keeps_the_rest_as_text() -> None:
    assert evidence("app/x.py:14: <b>table</b>") == (
        '<a class="mono" href="/file?path=app%2Fx.py&amp;line=14#L14">app/x.py:14</a>: '
        "&lt;b&gt;table&lt;/b&gt;")
    assert evidence("mirrors the columns: of <t>") == "mirrors the columns: of &lt;t&gt;"


def test_a_person_is_shown_by_name() -> None:
    assert who("Ana Analyst <ana@example.com>") == "Ana Analyst"
    assert who("<ana@example.com>") == "ana@example.com"
    assert who(None) == ""


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("LOCALHOST", True), ("0.0.0.0", False), ("10.0.0.5", False),
    ("example.com", False), ("::", False)])
def test_what_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_the_host_names_a_request_may_carry() -> None:
    assert allowed_hosts("127.0.0.1", 8765) == {"127.0.0.1:8765", "localhost:8765"}
    assert allowed_hosts("::1", 9000) == {"[::1]:9000", "localhost:9000"}
    assert allowed_hosts("127.0.0.1", 80) == {"127.0.0.1:80", "127.0.0.1", "localhost:80",
                                              "localhost"}
    assert allowed_hosts("10.0.0.5", 8765) == {"10.0.0.5:8765"}
    assert allowed_hosts("0.0.0.0", 8765) is None


def test_the_filter_matches_every_word_in_id_title_or_owner() -> None:
    row = {"story_id": "STORY-7", "title": "Discount codes", "created_by": "Ana <a@x>",
           "updated_by": None}
    assert pages.matches(row, "story-7 ana")
    assert pages.matches(row, "DISCOUNT")
    assert not pages.matches(row, "discount bo")


def _ctx() -> dict[str, Any]:
    return {
        "story": {"story_id": "S-1", "title": "<b>t</b>", "status": "review",
                  "created_by": "Ana <a@x>", "created_at": "2026-01-01T10:00:00.000Z",
                  "updated_at": "2026-01-02T10:00:00.000Z"},
        # a teammate two hours east: 11:30+02:00 is 09:30 UTC, before the note at 10:00Z
        "commits": [{"sha": "a" * 40, "short": "aaaaaaaaaa", "date": "2026-01-01T11:30:00+02:00",
                     "author": "Bo <b@x>", "subject": "S-1: <i>x</i>", "reachable": False,
                     "fetched": True}],
        "files": [{"path": "db/schema.sql", "change": "updated"},
                  {"path": "app/x.py", "change": "added"}],
        "artifacts": {"risk": [{"summary": "<script>alert(1)</script>", "path": None,
                                "section": None, "created_at": "2026-01-01T10:00:00.000Z",
                                "created_by": "Ana <a@x>", "private": False}]},
        "links": [{"type": "ticket", "target": "J-1", "description": None,
                   "created_at": "2026-01-01T12:00:00.000Z"}],
    }


def test_the_timeline_orders_commits_notes_and_links_by_their_instant() -> None:
    events = data.timeline(_ctx())
    assert [e["kind"] for e in events] == ["commit", "risk", "link"]
    assert events[0]["state"] == "unreachable: rewritten or dropped"


def test_the_story_page_escapes_everything_from_the_ledger() -> None:
    ctx = _ctx()
    body = pages.story_page(ctx, None, data.timeline(ctx), data.files_by_type(None, ctx["files"]),
                            {"items": [], "warnings": ["<w>"], "story": "S-1"})
    assert "<script>" not in body and "<b>t</b>" not in body and "<i>x</i>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "&lt;w&gt;" in body
    assert 'data-type="CODE"' in body and 'data-type="DB"' in body
    assert "no requirement document recorded" in body


def test_the_requirement_keeps_no_raw_html_and_no_script_links() -> None:
    out = data.markdown("# T\n\n<script>x()</script>\n\n[a](javascript:alert(1)) **b**\n\n"
                        "| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert "<h1>T</h1>" in out and "<strong>b</strong>" in out and "<table>" in out
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "javascript:" not in out.split("[a]")[0] and 'href="javascript' not in out


def test_the_graph_is_escaped_and_labels_its_edges() -> None:
    result = {"requirement": "add <col>", "files": [
        {"path": "db/<s>.sql", "score": 2.0, "reasons": {"fields": 1.0, "text": 0.5}}],
        "impacts": [{"kind": "field", "target": "orders.<c>", "path": "db/<s>.sql",
                     "lines": [3, 4], "type": "add", "detail": "d", "evidence": []}]}
    svg = graph.impact_svg(result)
    assert "<col>" not in svg and "&lt;col&gt;" in svg and "orders.&lt;c&gt;" in svg
    assert ">fields · text</text>" in svg and ">L3 · add</text>" in svg
    assert svg.count('class="edge"') == 2


class _Inner:
    def __init__(self) -> None:
        self.called = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.called += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _call(guard: Any, method: str, host: str) -> list[dict[str, Any]]:
    import asyncio

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/", "raw_path": b"/", "query_string": b"",
             "headers": [(b"host", host.encode())], "root_path": ""}
    asyncio.run(guard(scope, receive, send))
    return sent


def test_the_guard_refuses_a_foreign_host_and_any_write() -> None:
    from genesis_git.web.app import _Guard

    inner = _Inner()
    guard = _Guard(inner, frozenset({"127.0.0.1:8765"}))
    assert _call(guard, "GET", "evil.example:8765")[0]["status"] == 403
    assert _call(guard, "POST", "127.0.0.1:8765")[0]["status"] == 405
    assert inner.called == 0
    ok = _call(guard, "GET", "127.0.0.1:8765")[0]
    headers = {k.decode(): v.decode() for k, v in ok["headers"]}
    assert ok["status"] == 200 and inner.called == 1
    assert headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
