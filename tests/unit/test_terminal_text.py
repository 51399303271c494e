"""Text for a terminal: control characters dropped, widths measured in cells, grep-like
lines that never cut a path, a number or a score, and streams that degrade instead of
failing."""

from __future__ import annotations

import io
import json
import re

import pytest

from genesis_git.cli import output
from genesis_git.render import stories
from genesis_git.render.lines import json_text
from genesis_git.render.terminal import (
    ansi_paint,
    best_line,
    cells,
    clean,
    fit,
    flat,
    grep_line,
    no_paint,
    story_rows,
)
from genesis_git.search.explain import snippet
from genesis_git.search.textlines import name_line

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(("raw", "shown"), [
    ("fix \x1b[31mred\x1b[0m\x07 note", "fix red note"),            # colour and bell
    ("title\x1b]0;owned\x07 here", "title here"),                   # OSC: a window title
    ("a \x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\ b", "a link b"),  # OSC 8 link
    ("screen\x1b[2J\x1b[H cleared", "screen cleared"),              # erase and home
    ("hidden\rshown", "hiddenshown"),                               # CR cannot overwrite
    ("C1 \x9b31mcsi\x85next", "C1 csinext"),                        # C1 CSI and NEL
    ("nul\x00 del\x7f bs\x08", "nul del bs"),
    ("app/[slug]/page.tsx", "app/[slug]/page.tsx"),                 # brackets are text
    ("[wip] render the slug", "[wip] render the slug"),
    ("订单 café — naïve", "订单 café — naïve"),
])
def test_clean_drops_escape_sequences_and_control_characters(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_clean_keeps_lines_and_tabs_and_flat_joins_them() -> None:
    note = "first line\r\nsecond\tline\n\x1b[1mthird\x1b[0m"
    assert clean(note) == "first line\nsecond\tline\nthird"
    assert flat(note) == "first line second line third"
    assert clean(None) == flat(None) == ""


def test_cells_and_fit_count_wide_characters_twice() -> None:
    assert cells("订单") == 4 and cells("ab") == 2
    assert fit("订单表新增字段", 7) == "订单表…"
    assert cells(fit("订单表新增字段", 7)) <= 7
    assert fit("short", 10) == "short"


def test_a_grep_line_keeps_path_line_and_score_whole_at_80_columns() -> None:
    long_text = "shell completion for bash and zsh and fish " * 4
    line = grep_line("docs/shell-completion.md", 21, long_text, "DOC 0.0492", ["bash"], 80,
                     no_paint)
    assert line.startswith("docs/shell-completion.md:21: shell completion for bash")
    assert line.endswith("…  DOC 0.0492")
    assert cells(line) <= 80
    wide = grep_line("docs/req/订单.md", 5, "订单表新增字段 discount_code。" * 6, "REQ 0.0492",
                     ["discount"], 80, ansi_paint)
    plain = ANSI.sub("", wide)
    assert plain.startswith("docs/req/订单.md:5: 订单表新增字段 discount_code") and cells(plain) <= 80
    assert "\x1b[1;31mdiscount\x1b[0m" in wide and "\x1b[35mdocs/req/订单.md\x1b[0m" in wide


def test_a_long_path_puts_the_text_on_its_own_line() -> None:
    path = "docs/" + "a-rather-long-folder-name/" * 3 + "shell-completion.md"
    line = grep_line(path, 21, "completion for bash " * 8, "DOC 0.0492", ["bash"], 80, no_paint)
    first, second = line.split("\n")
    assert first == f"{path}:21:"
    assert second.startswith("    ") and second.endswith("  DOC 0.0492") and cells(second) <= 80


CHUNK = ("# Matrix classes\nfrom .dense import MutableDenseMatrix  # the Matrix\n"
         "MutableMatrix = MutableDenseMatrix\nMatrix = MutableMatrix\n")


def test_the_line_shown_for_a_name_is_the_one_that_defines_it() -> None:
    lines = CHUNK.splitlines()
    assert name_line(lines, "Matrix") == 3  # not the heading, the import or MutableMatrix =
    assert name_line(lines[:3], "Matrix") == 0  # held as written, no definition: the first
    assert name_line(lines[2:3], "Matrix") is None  # only inside other names
    assert best_line(CHUNK, 10, ["matrix"]) == (11, "from .dense import MutableDenseMatrix # the Matrix")
    assert best_line(CHUNK, 10, ["matrix"], "Matrix") == (13, "Matrix = MutableMatrix")
    assert best_line("x = 1\n", 5, ["x"], "Matrix") == (5, "x = 1")  # no line of the name
    assert snippet(CHUNK, ["matrix"], 120, "Matrix") == "Matrix = MutableMatrix"
    assert snippet(CHUNK, ["matrix"], 120) != "Matrix = MutableMatrix"


def test_story_rows_align_the_ids_and_keep_the_title_whole() -> None:
    rows = [{"story_id": "STORY-3", "status": "in_progress", "commits": 2, "artifacts": 1,
             "updated_at": "2026-11-30T10:00:00Z", "title": "[wip] render \x1b[2Jthe slug"},
            {"story_id": "STORY-12", "status": "done", "commits": 10, "artifacts": 0,
             "updated_at": "2026-11-29T09:00:00Z", "title": None}]
    assert story_rows(rows) == [
        "STORY-3   in_progress    2 commits    1 notes  2026-11-30 10:00  [wip] render the slug",
        "STORY-12  done          10 commits    0 notes  2026-11-29 09:00"]
    assert stories.list_lines(rows)[1].endswith("\t[wip] render the slug")


def test_a_story_context_strips_controls_and_keeps_a_notes_lines() -> None:
    ctx = {"story": {"story_id": "STORY-3", "title": "[wip]\x1b[31m render\x07", "status": "draft",
                     "baseline_commit_sha": None, "updated_at": "2026-11-30T10:00:00Z"},
           "commits": [{"short": "abc1234", "date": "2026-11-30", "author": "Ana\x1b[5m",
                        "subject": "STORY-3: [wip] render\rthe slug", "reachable": True}],
           "files": [{"change": "added", "path": "app/[slug]/page.tsx"}],
           "artifacts": {"decision": [{"path": "docs/CHANGELOG.md", "section":
                                       "Changelog > [unreleased]\x1b[8m",
                                       "summary": "keep\x1b[2K the\nslug\r\nroute", "doc_id": None,
                                       "created_by": "Ana <ana@example.com>",
                                       "created_at": "2026-11-30T10:00:00Z"}]},
           "links": [{"type": "doc", "target": "x\x1b]0;t\x07.md", "description": "the\x07 spec"}]}
    text = stories.context_text(ctx)
    md = stories.context_markdown(ctx)
    for out in (text, md):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)
        assert "[wip] render" in out and "app/[slug]/page.tsx" in out
        assert "§ Changelog > [unreleased]" in out
    assert "  abc1234  2026-11-30  Ana  STORY-3: [wip] renderthe slug" in text
    assert ("    - keep the\n      slug\n      route (docs/CHANGELOG.md § Changelog > "
            "[unreleased]) — Ana, 2026-11-30 10:00") in text
    assert "- keep the\n  slug\n  route (docs/CHANGELOG.md" in md
    assert "  doc: x.md  the spec" in text


def test_the_encode_handler_degrades_glyphs_and_escapes_the_rest() -> None:
    text = "STORY-7 — café → done… § 订单 ’ok’"
    assert text.encode("ascii", output.ERRORS) == (
        b"STORY-7 -- caf\\xe9 -> done... # \\u8ba2\\u5355 'ok'")
    assert "é — \udcff".encode("latin-1", output.ERRORS) == b"\xe9 -- \\udcff"


def test_safe_streams_turn_an_ascii_stream_into_one_that_never_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "_STATE", dict(output._STATE))
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr("sys.stdout", stream)
    monkeypatch.setattr("sys.stderr", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    with pytest.raises(UnicodeEncodeError):
        stream.write("—")
        stream.flush()
    output.safe_streams()
    output.configure()
    output.echo("done — 订单")
    output.emit_json({"title": "订单"})
    stream.flush()
    lines = raw.getvalue().decode("ascii").splitlines()
    assert lines[0] == "done -- \\u8ba2\\u5355"
    assert json.loads("\n".join(lines[1:])) == {"title": "订单"}


def test_arguments_a_c_locale_could_not_decode_are_read_as_utf8() -> None:
    held = "STORY-9—x".encode().decode("ascii", "surrogateescape")  # what LANG=C gives
    bad = b"STORY-9\xff".decode("ascii", "surrogateescape")
    assert output.utf8_args([held, "plain", "订单", bad]) == [
        "STORY-9—x", "plain", "订单", "STORY-9\udcff"]  # not UTF-8: kept, to be refused
    assert output.printable("a\udcffb") == "a\\udcffb"


def test_json_stays_exact() -> None:
    data = {"title": "[wip] \x1b[31mred\x07", "path": "app/[slug]/page.tsx"}
    assert json.loads(json_text(data)) == data


@pytest.mark.parametrize(("choice", "env", "tty", "on"), [
    ("auto", {}, True, True), ("auto", {}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False), ("auto", {"NO_COLOR": ""}, True, True),
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("always", {"NO_COLOR": "1"}, False, True), ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_the_colour_rule(monkeypatch: pytest.MonkeyPatch, choice: str, env: dict[str, str],
                         tty: bool, on: bool) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(output._STATE, "color", choice)
    monkeypatch.setitem(output._STATE, "tty", tty)
    assert output.color_enabled() is on
    assert (output.paint() is ansi_paint) is on
