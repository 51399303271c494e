"""``genesis web`` as a real subprocess on a free port, over real clones with the hooks
installed: the pages, what they escape, the Host check, reads only, the signals."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from clones import env_of
from webserve import Server, get, start, story_clones

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
# the clones and their story take about twenty seconds to build, once for the module
pytestmark = pytest.mark.slow


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
    assert proc.stderr == ("genesis: error: 0.0.0.0 is not a loopback address (genesis web "
                           "serves this machine only; --public serves other machines too, and "
                           "anyone who reaches the port reads the stories)\n")
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


# -- in a real headless Chromium ------------------------------------------------------------

def _chromium() -> str:
    """Debian's Chromium (no browser is downloaded at test time), or a clear skip."""
    import shutil

    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("browser tests skipped: Playwright for Python is not installed "
                    "(pip install -e '.[dev]')")
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("browser tests skipped: no Chromium on PATH (Debian: apt-get install "
                "chromium; make test installs it when it can)")


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"],
                                      timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_the_story_page_in_chromium_shows_its_parts(browser: object, bo_server: Server,
                                                    tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(bo_server.url + "stories", timeout=30_000)
    page.get_by_role("link", name="STORY-7").click()
    page.wait_for_selector("#look-at", timeout=30_000)
    assert page.locator("#story-title").inner_text() == "STORY-7: discount code on orders"
    assert page.locator("#requirement h1").inner_text() == "Discount codes at checkout"
    assert page.locator("#timeline li.event").count() >= 7
    assert page.locator("#files .group").count() == 2
    assert page.locator("#look-at ul.looks > li").count() >= 1
    # the XSS attempt in a note is text: nothing ran, the markup is shown as written
    assert page.evaluate("window.__pwned") is None and dialogs == []
    assert page.locator("#timeline").get_by_text(
        "<script>window.__pwned = 1</script>", exact=False).count() == 1
    # the screenshot holds every part: the requirement beside the timeline, the files and
    # the tester's list below, each drawn (not blank)
    shot = tmp_path / "story-page.png"
    page.screenshot(path=str(shot), full_page=True)
    width, height = _png_size(shot.read_bytes())
    assert width == 1280 and height > 900
    boxes = {part: page.locator(part).bounding_box()
             for part in ("#requirement", "#timeline", "#files", "#look-at")}
    assert all(box and box["width"] > 300 and box["height"] > 80 for box in boxes.values())
    req, tl = boxes["#requirement"], boxes["#timeline"]
    assert req["x"] < tl["x"] and abs(req["y"] - tl["y"]) < 2  # type: ignore[index]
    assert boxes["#files"]["y"] >= max(req["y"] + req["height"], tl["y"] + tl["height"])  # type: ignore[index]
    for part in boxes:
        png = page.locator(part).screenshot()
        assert len(png) > 4000, f"{part} looks blank"


def test_light_and_dark_themes_and_the_switch(browser: object, bo_server: Server) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)  # type: ignore[attr-defined]
        page = context.new_page()
        page.goto(bo_server.url + "stories/STORY-7", timeout=30_000)
        colours[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        if scheme == "dark":
            page.locator("#theme").click()  # the reader picks light; it stays on reload
            assert page.evaluate("getComputedStyle(document.body).backgroundColor") == \
                colours["light"]
            page.reload()
            assert page.evaluate("getComputedStyle(document.body).backgroundColor") == \
                colours["light"]
        context.close()
    assert colours == {"light": "rgb(247, 247, 245)", "dark": "rgb(21, 24, 28)"}


def test_the_pages_read_without_javascript(browser: object, bo_server: Server) -> None:
    context = browser.new_context(java_script_enabled=False)  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(bo_server.url + "stories", timeout=30_000)
    assert page.locator("#theme").is_hidden()  # the switch needs a script; reading does not
    page.get_by_placeholder("id, title, owner").fill("bo")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**/stories?q=bo**", timeout=30_000)
    assert page.locator("#stories tbody tr").count() == 1
    page.get_by_role("link", name="STORY-8").click()
    page.wait_for_selector("#timeline", timeout=30_000)
    assert "Test a code twice on one order" in page.locator("#timeline").inner_text()
    context.close()


def test_a_search_result_opens_its_file_at_its_line(browser: object, bo_server: Server
                                                    ) -> None:
    page = browser.new_page(viewport={"width": 640, "height": 700})  # type: ignore[attr-defined]
    page.goto(bo_server.url + "search", timeout=30_000)
    page.get_by_placeholder("order total").fill("discount_code orders")
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("#hits", timeout=30_000)
    first = page.locator("#hits > li > a").first
    where = first.inner_text()
    first.click()
    line = int(where.split(":")[1].split("-")[0])
    page.wait_for_url(f"**#L{line}", timeout=30_000)
    target = page.locator(f"#L{line}")
    assert "hit" in (target.get_attribute("class") or "") and target.is_visible()
    # a narrow window: nothing wider than it
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1") or \
        page.locator("pre.source").count() == 1
    page.goto(bo_server.url + "stories/STORY-7", timeout=30_000)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    req = page.locator("#requirement").bounding_box()
    tl = page.locator("#timeline").bounding_box()
    assert req and tl and tl["y"] > req["y"]  # stacked, not side by side


def test_without_the_extra_it_says_how_to_install_it(team: tuple[Path, Path]) -> None:
    # the extra made unimportable in this one process: ``import starlette`` fails there
    code = ("import sys; sys.modules['starlette'] = None; sys.argv = ['genesis', 'web']; "
            "from genesis_git.cli.main import run; run()")
    proc = subprocess.run([sys.executable, "-c", code], cwd=team[0], env=env_of(),
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (3, "")
    assert proc.stderr.startswith("genesis: error: genesis web needs Starlette and uvicorn, an "
                                  "optional extra (install them with: ")
    assert "[web]" in proc.stderr and proc.stderr.count("\n") == 1


def test_open_hands_the_url_to_the_browser(team: tuple[Path, Path], tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(0o755)
    env = {**env_of(), "BROWSER": f"{browser} %s"}
    server = start(team[0], "--open", env=env)
    try:
        deadline = time.monotonic() + 30
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        code, _, _ = server.stop()
    assert code == 0 and opened.read_text() == server.url


def test_a_teammates_story_appears_on_reload_after_a_sync(tmp_path: Path) -> None:
    from clones import clone, commit, gen, make_remote

    remote = make_remote(tmp_path)
    ana = clone(remote, tmp_path, "ana")
    bo = clone(remote, tmp_path, "bo")
    server = start(bo)
    try:
        assert get(server.url + "stories/STORY-5")[0] == 404
        gen(ana, "session", "start")
        gen(ana, "session", "note", "Totals round half to even", "--role", "decision")
        commit(ana, "app/orders.py", "def total(items):\n    return round(sum(items))\n",
               "STORY-5: totals are rounded")
        subprocess.run(["git", "push", "-q", "origin", "HEAD:main"], cwd=ana, env=env_of(),
                       check=True, capture_output=True, timeout=120)
        gen(ana, "sync")
        assert get(server.url + "stories/STORY-5")[0] == 404  # not fetched yet
        gen(bo, "sync")  # in another terminal, while the server runs
        status, _, body = get(server.url + "stories/STORY-5")
        assert status == 200 and "Totals round half to even" in body and "Ana Analyst" in body
        _, _, listing = get(server.url + "stories")
        assert 'href="/stories/STORY-5"' in listing
    finally:
        code, _, err = server.stop()
    assert code == 0, err
