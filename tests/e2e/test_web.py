"""``genesis web`` as a real subprocess on a free port, over real clones with the hooks
installed: the pages, what they escape, the Host check, reads only, the signals."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from clones import env_of
from webserve import XSS, Server, get, start, story_clones

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return story_clones(tmp_path_factory.mktemp("web-team"))


@pytest.fixture(scope="module")
def bo_server(team: tuple[Path, Path]) -> Iterator[Server]:
    """The tester's server: Bo's clone, which holds Ana's story from the shared ledger."""
    server = start(team[1])
    yield server
    code, _, err = server.stop()
    assert code == 0, err


def test_the_first_line_is_the_url_on_loopback(bo_server: Server) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", bo_server.url)
    status, _, body = get(bo_server.url)
    assert status == 200 and "<h1>Stories</h1>" in body


def test_the_story_list_has_status_owner_last_change_and_a_filter(bo_server: Server) -> None:
    status, _, body = get(bo_server.url + "stories")
    assert status == 200
    rows = re.findall(r"<tr><td><a href=\"/stories/(STORY-\d+)\">", body)
    assert sorted(rows) == ["STORY-7", "STORY-8"]
    row7 = body[body.index('href="/stories/STORY-7"'):].split("</tr>", 1)[0]
    assert "Ana Analyst" in row7 and "in progress" in row7
    assert re.search(r'class="mono">\d{4}-\d\d-\d\d \d\d:\d\d<', row7)
    row8 = body[body.index('href="/stories/STORY-8"'):].split("</tr>", 1)[0]
    assert "Bo Builder" in row8 and "review" in row8
    _, _, only = get(bo_server.url + "stories?q=ana")
    assert "/stories/STORY-7" in only and "/stories/STORY-8" not in only
    assert "1 of 2 stories" in only
    _, _, review = get(bo_server.url + "stories?status=review")
    assert "/stories/STORY-8" in review and "/stories/STORY-7" not in review


def test_the_story_page_holds_a_teammates_requirement_timeline_and_files(
        bo_server: Server) -> None:
    status, _, body = get(bo_server.url + "stories/STORY-7")
    assert status == 200
    # the requirement document rendered, its raw HTML shown as text
    req = body[body.index('id="requirement"'):body.index('id="timeline"')]
    assert "<h1>Discount codes at checkout</h1>" in req and "<strong>discount code</strong>" in req
    assert "<table>" in req and "&lt;b&gt;raw html stays text&lt;/b&gt;" in req
    # the timeline: Ana's commits, notes with their roles, the link, who and when
    timeline = body[body.index('id="timeline"'):body.index('id="files"')]
    kinds = re.findall(r'data-kind="(\w+)"', timeline)
    assert kinds.count("commit") == 2
    assert {"decision", "risk", "analysis", "requirement", "link"} <= set(kinds)
    assert "Codes are case-insensitive" in timeline and "Refunds may count" in timeline
    assert "JIRA-42" in timeline and timeline.count("Ana Analyst") >= 5
    # the net files by artifact type
    files = body[body.index('id="files"'):body.index('id="look-at"')]
    groups = dict(re.findall(r'data-type="(\w+)"><h3>\w+ \((\d+)\)', files))
    assert groups == {"DB": "1", "CODE": "1"}
    assert 'href="/file?path=db%2Fschema.sql"' in files
    # what a tester should look at, with evidence linked to its lines
    look = body[body.index('id="look-at"'):]
    assert "changed by the story" in look
    assert re.search(r'href="/file\?path=[^"]+&amp;line=\d+#L\d+"', look)


def test_a_note_with_markup_and_escape_codes_is_text(bo_server: Server) -> None:
    _, headers, body = get(bo_server.url + "stories/STORY-7")
    assert "<script>window.__pwned" not in body and "<img src=x" not in body
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=" in body
    assert "\x1b" not in body and "[31mred" in body
    assert "script-src 'self'" in headers["content-security-policy"]


def test_a_foreign_host_is_refused(bo_server: Server) -> None:
    port = bo_server.url.rsplit(":", 1)[1].strip("/")
    for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1:1"):
        status, _, body = get(bo_server.url + "stories/STORY-7", host=host)
        assert status == 403, host
        assert body.startswith("refused: Host ") and "STORY-7" not in body
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert get(bo_server.url + "stories", host=host)[0] == 200


def test_nothing_writes(bo_server: Server) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        status, headers, body = get(bo_server.url + "stories/STORY-7", method=method)
        assert (status, headers["allow"]) == (405, "GET, HEAD")
        assert body == "genesis web only reads: GET and HEAD\n"


def test_an_unknown_story_and_bad_input_are_one_clear_page(bo_server: Server) -> None:
    status, _, body = get(bo_server.url + "stories/STORY-70")
    assert status == 404 and "unknown story &#x27;STORY-70&#x27;" in body
    assert "(closest known: STORY-8, STORY-7)" in body and "Traceback" not in body
    status, _, body = get(bo_server.url + "stories/" + quote("<b>x</b>", safe=""))
    assert status == 404 and "&lt;b&gt;x&lt;/b&gt;" in body and "<b>x</b>" not in body
    status, _, body = get(bo_server.url + "search?q=total&k=many")
    assert status == 200 and "k must be a number, not &#x27;many&#x27;" in body
    assert get(bo_server.url + "static/../genesis.db")[0] == 404
    assert get(bo_server.url + "static/page.html")[0] == 404


def test_search_links_every_result_to_its_file_at_its_line(bo_server: Server) -> None:
    status, _, body = get(bo_server.url + "search?q=discount+code&type=CODE&type=DB&k=5")
    assert status == 200
    hits = re.findall(r'<li><a class="mono" href="(/file\?path=[^"]+)">([^<]+)</a>', body)
    assert hits and all(re.search(r"&amp;line=(\d+)#L\1$", h) for h, _ in hits)
    assert {h.split(":")[0] for _, h in hits} <= {"app/orders.py", "db/schema.sql"}
    assert 'value="CODE" checked' in body and 'value="DB" checked' in body
    link = hits[0][0].replace("&amp;", "&")
    status, _, page = get(bo_server.url + link.lstrip("/"))
    line = int(re.search(r"line=(\d+)", link).group(1))
    assert status == 200 and f'<span class="ln hit" id="L{line}">' in page


def test_the_file_page_shows_tracked_files_only(bo_server: Server, team: tuple[Path, Path]
                                               ) -> None:
    (team[1] / "untracked.txt").write_text("secret\n")
    for path in ("untracked.txt", "../ana/app/orders.py", "/etc/passwd", ".git/config"):
        status, _, body = get(bo_server.url + "file?path=" + quote(path, safe=""))
        assert status == 404 and "git does not track this file here" in body, path
    status, _, body = get(bo_server.url + "file?path=app/orders.py&line=2")
    assert status == 200 and "discount_code=None" in body


def test_impact_draws_requirement_files_and_symbols(bo_server: Server) -> None:
    status, _, body = get(bo_server.url + "impact?q=" + quote("orders table discount_code"))
    assert status == 200
    svg = body[body.index("<svg"):body.index("</svg>")]
    assert 'class="node req"' in svg and 'class="node file"' in svg
    assert re.search(r'class="node (field|symbol)"', svg)
    assert re.findall(r'<text class="label"[^>]*>([^<]+)</text>', svg)  # edges say why
    assert "db/schema.sql" in body
    status, _, body = get(bo_server.url + "impact?story=STORY-7")
    assert status == 200 and "the requirement of" in body and "<svg" in body


def test_sigterm_and_ctrl_c_end_the_server_cleanly(team: tuple[Path, Path]) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        server = start(team[0])
        assert get(server.url + "stories")[0] == 200
        code, out, err = server.stop(sig)
        assert (code, out) == (0, "")
        assert err.splitlines() == ["genesis web: read-only; Ctrl-C stops it",
                                    "genesis web: stopped"]


def test_a_public_address_needs_a_flag_and_warns(team: tuple[Path, Path]) -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "web", "--host", "0.0.0.0"],
                          cwd=team[0], env=env_of(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("genesis: error: 0.0.0.0 is not a loopback address")
    server = start(team[0], "--host", "0.0.0.0", "--public")
    try:
        assert get(server.url + "stories")[0] == 200
    finally:
        code, _, err = server.stop()
    assert code == 0
    assert "genesis web: warning: serving 0.0.0.0:" in err


def test_outside_a_repository_and_on_a_busy_port(tmp_path: Path, team: tuple[Path, Path]
                                                 ) -> None:
    proc = subprocess.run([sys.executable, "-m", "genesis_git", "web", "--port", "0"],
                          cwd=tmp_path, env=env_of(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr == (f"genesis: error: {tmp_path}: not a git repository (run genesis "
                           "inside a git working tree, or `git init` first)\n")
    server = start(team[0])
    try:
        port = server.url.rsplit(":", 1)[1].strip("/")
        proc = subprocess.run([sys.executable, "-m", "genesis_git", "web", "--port", port],
                              cwd=team[0], env=env_of(), capture_output=True, text=True,
                              timeout=60)
    finally:
        server.stop()
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"genesis: error: cannot listen on 127.0.0.1:{port}: ")
