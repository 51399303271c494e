"""The ``genesis design`` command group: help, output shapes and exit codes, a real subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import LIB, copy_inbox, design, genesis_cmd, ok, snapshot

COMMANDS = ["init", "search", "list", "brief", "request", "status", "feedback", "capture",
            "check-refs", "stats", "ingest"]


def test_every_design_command_has_help() -> None:
    top = ok("--help").stdout
    for name in COMMANDS:
        assert f"  {name} " in top, name
    for name in COMMANDS[:-1]:
        text = ok(name, "--help").stdout
        assert "Usage: " in text and "--help" in text, name
    ingest = ok("ingest", "--help").stdout
    for sub in ("rules", "docs", "inbox", "manifest"):
        assert f"  {sub} " in ingest
        assert "Usage: " in ok("ingest", sub, "--help").stdout
    assert "--json" in ok("stats", "--help").stdout
    assert "--markdown" in ok("search", "--help").stdout


def test_every_data_command_takes_json(repo: Path) -> None:
    ok("ingest", "rules", "--json")
    for args in (["init"], ["search", "contrast"], ["list"], ["brief", "contrast"],
                 ["request", "scene"], ["status"], ["feedback", "DSG-0001", "useful"],
                 ["stats"]):
        res = ok(*args, "--json")
        json.loads(res.stdout)


def test_list_filters_by_kind_and_status(repo: Path) -> None:
    ok("ingest", "rules")
    copy_inbox(repo)
    design("ingest", "inbox")
    ok("feedback", "DSG-0034", "block")
    users = json.loads(ok("list", "--kind", "user", "--json").stdout)
    assert [c["id"] for c in users] == ["DSG-0034", "DSG-0035"]
    assert users[0]["images"][0].startswith("refs/")
    blocked = ok("list", "--status", "blocked").stdout
    assert blocked.startswith("DSG-0034  user     1.0  深色首页卡片")
    assert blocked.rstrip().endswith("[blocked]")
    assert ok("list", "--kind", "project").stdout == "no cards\n"


def test_init_text_output(repo: Path) -> None:
    first = ok("init").stdout.splitlines()
    assert first[0] == "library: .shared/design-library (created, 0 card(s))"
    assert first[1].startswith("reader:  .shared/design-library/query.mjs (engineSha256 ")
    assert ok("init").stdout.splitlines()[0] == "library: .shared/design-library (exists, 0 card(s))"


def test_ingest_text_output(repo: Path) -> None:
    out = ok("ingest", "rules").stdout
    assert out.startswith("rules: ") and out.endswith(
        " added, 0 updated, 0 unchanged, 0 skipped, 0 rejected\n")
    (repo / "ux").mkdir()
    (repo / "ux" / "a.md").write_text("# A\n\ngap 8vp\n", encoding="utf-8")
    (repo / "ux" / "b.md").write_text("# A\n\ngap 8vp\n", encoding="utf-8")
    text = ok("ingest", "docs", "ux").stdout
    assert "docs ux: 1 added, 0 updated, 0 unchanged, 1 skipped, 0 rejected" in text
    assert "  skipped ux/b.md: already in the library as DSG-" in text


def test_status_and_stats_text(repo: Path) -> None:
    ok("ingest", "rules")
    ok("request", "dark mode", "--expect", "few")
    text = ok("status").stdout
    assert text.splitlines()[1] == "requests: 1 (1 pending, 0 stalled after 30 min)"
    stats = ok("stats").stdout
    assert "reader:  matches engineSha256" in stats
    (repo / LIB / "index.json").write_text("{", encoding="utf-8")
    assert "(unavailable: .shared/design-library/index.json is corrupt" in ok("stats").stdout
    (repo / LIB / "query.mjs").write_text("//", encoding="utf-8")
    assert "reader:  DIFFERS from engineSha256" in ok("stats").stdout


def test_commands_in_a_real_subprocess(repo: Path) -> None:
    ok("ingest", "rules")
    before = snapshot(repo / LIB)
    proc = subprocess.run([*genesis_cmd(), "design", "search", "深色", "卡片", "--json"],
                          cwd=repo, capture_output=True, text=True, encoding="utf-8")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["results"][0]["cardId"].startswith("DSG-")
    assert snapshot(repo / LIB) == before
    bad = subprocess.run([*genesis_cmd(), "design", "feedback", "DSG-0001", "nope"], cwd=repo,
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr == ("genesis: error: unknown feedback 'nope' (use useful, off, block, "
                          "unblock)\n")
    assert "Traceback" not in bad.stderr
