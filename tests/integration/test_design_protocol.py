"""Briefs (RAG-D, RAG-K), requests and status (RAG-M), feedback (RAG-H), capture (RAG-L),
check-refs (RAG-F, RAG-G)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from genesis_git.design.feedback import card_id, history, new_weight
from genesis_git.design.library import open_library
from genesis_git.design.protocol import (
    OUTBOX_DEVECO,
    read_records,
    request,
    request_id,
    status,
)
from genesis_git.design.search import search
from genesis_git.kernel.errors import GenesisError, UsageError

from helpers import LIB, ROOT, card, copy_inbox, design, ok, tok, write, write_manifest

SHARED = Path(".shared")


@pytest.fixture
def full(repo: Path) -> Path:
    """Rules plus the example inbox, with the unlicensed example stored as ``unknown``."""
    ok("ingest", "rules")
    copy_inbox(repo, unknown_license_for_empty=True)
    ok("ingest", "inbox")
    return repo


def _brief_cards(text: str) -> list[dict[str, str]]:
    cards: list[dict[str, str]] = []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        head, *lines = block.strip().splitlines()
        fields = {m.group(1): m.group(2) for m in
                  (re.match(r"^- ([^:]+): (.*)$", line) for line in lines) if m}
        fields["heading"] = head
        cards.append(fields)
    return cards


# -- brief ---------------------------------------------------------------------------

def test_rag_d_brief_holds_3_to_5_complete_cards_with_existing_images(full: Path) -> None:
    res = ok("brief", "深色 首页 卡片 间距")
    out = full / "tasks" / "design-brief.md"
    text = out.read_text(encoding="utf-8")
    assert res.stdout == text
    assert res.stderr.strip() == ("genesis: brief written to tasks/design-brief.md; inspiration "
                                  "#i-1 appended")
    cards = _brief_cards(text)
    assert 3 <= len(cards) <= 5
    for c in cards:
        assert re.fullmatch(r"DSG-\d{4} · .+", c["heading"])
        assert c["refId"] == c["heading"].split(" · ")[0]
        for key in ("image", "tokens", "why", "do", "don't", "source"):
            assert c[key], (c["refId"], key)
        assert re.search(r"\((MIT|CC-BY-4.0|CC0-1.0)\)", c["source"])
    with_images = [c for c in cards if c["image"] != "none"]
    assert with_images, "the dark inbox card has an image and must be in this brief"
    for c in with_images:
        path = c["image"].split(" (")[0]
        assert (full / path).is_file(), path
    assert cards[0]["refId"] == "DSG-0034"
    record = (full / SHARED / "outbox-dsh.md").read_text(encoding="utf-8")
    ids = ", ".join(c["refId"] for c in cards)
    assert re.search(r"^## \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] inspiration · #i-1 · "
                     r"from=dsh to=deveco \| design brief: 深色 首页 卡片 间距$", record, re.M)
    assert f"- cards: {ids}\n" in record and "- brief: tasks/design-brief.md\n" in record


def test_rag_k_unknown_license_stays_out_of_briefs(full: Path) -> None:
    res = ok("brief", "列表 空态 empty", "--json")
    data = json.loads(res.stdout)
    assert "DSG-0035" not in data["cards"]
    assert "DSG-0035 matched but is kept out of the brief (license unknown)" in data["warnings"]
    assert search(open_library(full), "列表 空态 empty")["results"][0]["cardId"] == "DSG-0035"


def test_brief_pads_to_three_with_general_references(repo: Path) -> None:
    write_manifest(repo / "f" / "manifest.json", [
        card(1, "Dialog corners", ["dialog"], {"radius": [tok("dialog", 28, "vp")]}, "Round."),
        card(2, "Badge dot", ["badge"], {"layout": [tok("badge", 16, "vp")]}, "Small."),
        card(3, "Avatar", ["avatar"], {"layout": [tok("avatar", 40, "vp")]}, "Circle."),
        card(4, "No source", ["x"], {}, "x"),
    ])
    ok("ingest", "manifest", "f/manifest.json")
    ok("feedback", "DSG-0003", "useful")
    data = json.loads(ok("brief", "dialog", "--out", "docs/brief.md", "--json").stdout)
    assert data["cards"] == ["DSG-0001", "DSG-0003", "DSG-0002"]
    text = (repo / "docs" / "brief.md").read_text(encoding="utf-8")
    assert text.count("- score: general reference (no match for this task)") == 2


def test_brief_with_an_empty_library_writes_nothing(repo: Path) -> None:
    ok("init")
    res = design("brief", "anything")
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.strip() == ("genesis: error: no brief written: the design library holds "
                                  "no card (add the rule cards with `genesis design ingest "
                                  "rules`)")
    assert not (repo / "tasks").exists()
    assert not (repo / SHARED / "outbox-dsh.md").exists()


def test_brief_arguments(repo: Path, tmp_path: Path) -> None:
    ok("ingest", "rules")
    res = design("brief")
    assert res.exit_code == 2
    assert res.stderr.strip() == ("genesis: error: give a task or query, or --request q-N "
                                  '(e.g. genesis design brief "dark mode home cards")')
    res = design("brief", "x", "--out", str(tmp_path / "brief.md"))
    assert res.exit_code == 1 and "--out" in res.stderr and "is outside the repository" in \
        res.stderr
    res = design("brief", "--request", "q-9")
    assert res.exit_code == 1
    assert res.stderr.strip() == ("genesis: error: unknown design request #q-9 (see `genesis "
                                  "design status` for open requests)")
    res = design("brief", "--request", "nine")
    assert res.exit_code == 2 and "not a request id" in res.stderr


# -- protocol ------------------------------------------------------------------------

def test_rag_m_request_brief_answer_status_round_trip(full: Path) -> None:
    res = ok("request", "深色模式 · 首页卡片 · 列表空态", "--expect", "3 张以内，偏克制")
    assert res.stdout == "design-request #q-1 appended to .shared/outbox-deveco.md\n"
    pending = json.loads(ok("status", "--json").stdout)
    assert pending["pending"] == 1 and pending["requests"][0]["answered"] is False
    assert pending["requests"][0]["scene"] == "深色模式 · 首页卡片 · 列表空态"
    assert pending["requests"][0]["expect"] == "3 张以内，偏克制"
    text = ok("status").stdout
    assert "  #q-1  pending  深色模式 · 首页卡片 · 列表空态" in text
    data = json.loads(ok("brief", "--request", "#q-1", "--json").stdout)
    assert data["request"] == "q-1" and data["query"] == "深色模式 · 首页卡片 · 列表空态"
    brief_text = (full / "tasks" / "design-brief.md").read_text(encoding="utf-8")
    assert "- request: #q-1\n" in brief_text
    outbox = (full / SHARED / "outbox-dsh.md").read_text(encoding="utf-8")
    assert re.search(r"inspiration · #i-1 · from=dsh to=deveco · re=#q-1 \| answer to #q-1: ",
                     outbox)
    done = json.loads(ok("status", "--json").stdout)
    assert done["pending"] == 0
    assert done["requests"][0]["answered"] is True
    assert done["requests"][0]["answeredBy"] == "i-1"
    assert "  #q-1  answered by #i-1  " in ok("status").stdout
    second = ok("request", "按钮 动效", "--json")
    assert json.loads(second.stdout)["id"] == "q-2"


def test_status_marks_stalled_requests(repo: Path) -> None:
    write(repo, ".genesis.toml", "[design]\nstall_minutes = 45\n")
    lib = open_library(repo)
    old = datetime.now(timezone.utc) - timedelta(minutes=50)
    request(lib, "空态 参考", now=old)
    request(lib, "fresh one")
    data = status(lib)
    assert data["stallMinutes"] == 45
    assert [(r["id"], r["stalled"]) for r in data["requests"]] == [("q-1", True), ("q-2", False)]
    assert data["stalled"] == 1 and data["pending"] == 2
    assert data["library"]["state"] == "absent"
    text = ok("status").stdout
    assert text.startswith("library: absent: no design library at .shared/design-library\n")
    assert "requests: 2 (2 pending, 1 stalled after 45 min)" in text
    assert re.search(r"  #q-1  STALLED \(5\d\.\d min\)  空态 参考", text)


def test_outbox_records_of_other_kinds_are_counted_only(repo: Path) -> None:
    write(repo, ".shared/outbox-deveco.md",
          "# outbox\n\n## [2026-01-01T00:00:00.000Z] delivery · #d-1 · from=deveco to=dsh | done\n"
          "- note: x\n\n## [not a date] design-request · #q-4 · from=deveco to=dsh | 旧格式\n"
          "- 场景: 深色模式\n- 期望: 三张\n")
    lib = open_library(repo)
    data = status(lib)
    assert data["records"][OUTBOX_DEVECO] == {"delivery": 1, "design-request": 1}
    req = data["requests"][0]
    assert req["id"] == "q-4" and req["scene"] == "深色模式" and req["expect"] == "三张"
    assert req["ageMinutes"] is None and req["stalled"] is False
    assert request(lib, "next").id == "q-5"
    assert [r.kind for r in read_records(lib, OUTBOX_DEVECO)] == ["delivery", "design-request",
                                                                   "design-request"]


def test_request_ids_and_empty_scene() -> None:
    assert request_id("#q-3") == request_id("q-3") == request_id("3") == "q-3"
    with pytest.raises(UsageError):
        request_id("x-1")


def test_empty_scene_is_a_usage_error(repo: Path) -> None:
    res = design("request", "  ")
    assert res.exit_code == 2
    assert res.stderr.strip().startswith("genesis: error: the scene is empty")


# -- feedback ------------------------------------------------------------------------

def test_rag_h_block_unblock_and_history(full: Path) -> None:
    lib = open_library(full)
    query = "深色 卡片 描边"
    assert search(lib, query)["results"][0]["cardId"] == "DSG-0034"
    res = ok("feedback", "DSG-0034", "block", "--note", "太花了")
    assert res.stdout == "DSG-0034: block → weight 1, blocked\n"
    assert "DSG-0034" not in [r["cardId"] for r in search(lib, query, top=50)["results"]]
    ok("feedback", "dsg-34", "unblock")
    assert search(lib, query)["results"][0]["cardId"] == "DSG-0034"
    entries = history(lib, "DSG-0034")
    assert [(e["action"], e["status"], e["note"]) for e in entries] == [
        ("block", "blocked", "太花了"), ("unblock", "active", "")]
    lines = (full / LIB / "feedback.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["before"] == {"weight": 1.0,
                                                                  "status": "active"}


def test_weights_multiply_and_clamp(full: Path) -> None:
    weights = [json.loads(ok("feedback", "DSG-0001", "useful", "--json").stdout)["weight"]
               for _ in range(6)]
    assert weights == [1.1, 1.21, 1.331, 1.4641, 1.5, 1.5]
    offs = [json.loads(ok("feedback", "DSG-0002", "off", "--json").stdout)["weight"]
            for _ in range(4)]
    assert offs == [0.8, 0.64, 0.512, 0.5]
    assert new_weight(1.0, "block") == 1.0
    cards = json.loads((full / LIB / "manifest.json").read_text("utf-8"))["cards"]
    assert cards[0]["weight"] == 1.5 and cards[1]["weight"] == 0.5
    assert len(history(open_library(full))) == 10


def test_feedback_errors(full: Path) -> None:
    res = design("feedback", "DSG-0999", "useful")
    assert res.exit_code == 1
    assert res.stderr.strip() == "genesis: error: unknown card DSG-0999 (see `genesis design list`)"
    res = design("feedback", "DSG-0001", "love")
    assert res.exit_code == 2
    assert res.stderr.strip() == ("genesis: error: unknown feedback 'love' (use useful, off, "
                                  "block, unblock)")
    res = design("feedback", "card-1", "off")
    assert res.exit_code == 2 and "card-1: not a card id" in res.stderr
    assert card_id("7") == "DSG-0007"


# -- capture -------------------------------------------------------------------------

def test_rag_l_capture_needs_confirmation_then_makes_a_project_card(repo: Path) -> None:
    baseline = repo / "baseline.json"
    baseline.write_bytes((ROOT / "examples" / "baseline.json").read_bytes())
    res = design("capture", "--baseline", "baseline.json")
    assert res.exit_code == 1
    assert res.stderr.strip() == ("genesis: error: capture refused: the baseline is not "
                                  "confirmed (capture only what the user accepted; rerun with "
                                  "--confirmed)")
    assert not (repo / LIB).exists()
    res = ok("capture", "--baseline", "baseline.json", "--confirmed")
    assert res.stdout == "DSG-0001: project card added from baseline.json\n"
    created = json.loads((repo / LIB / "manifest.json").read_text("utf-8"))["cards"][0]
    expected = json.loads(baseline.read_text("utf-8"))
    assert created["source"] == {"kind": "project", "ref": "baseline.json",
                                 "license": "project-internal"}
    assert created["tokens"] == expected["tokens"]
    assert created["title"] == expected["title"]
    again = ok("capture", "--baseline", "baseline.json", "--confirmed")
    assert again.stdout == "DSG-0001: project card unchanged from baseline.json\n"
    hits = search(open_library(repo), "home 20vp 圆角")["results"]
    assert hits[0]["cardId"] == "DSG-0001"
    log = [json.loads(x) for x in (repo / LIB / "feedback.jsonl").read_text("utf-8").splitlines()]
    assert [(e["action"], e["card"], e["baseline"]) for e in log] == [
        ("capture", "DSG-0001", "baseline.json")]


def test_capture_refusals_and_images(repo: Path) -> None:
    write(repo, "b1.json", json.dumps({"confirmed": False, "tokens": {"radius": [tok("r", 4)]}}))
    res = design("capture", "--baseline", "b1.json", "--confirmed")
    assert res.exit_code == 1
    assert res.stderr.strip() == ('genesis: error: capture refused: b1.json says "confirmed": '
                                  "false (confirm the baseline with the user first)")
    write(repo, "b2.json", json.dumps({"title": "t"}))
    assert "has no tokens to capture" in design("capture", "--baseline", "b2.json",
                                                "--confirmed").stderr
    assert "no such file" in design("capture", "--baseline", "none.json", "--confirmed").stderr
    write(repo, "b3.json", "[")
    assert "cannot be read" in design("capture", "--baseline", "b3.json", "--confirmed").stderr
    write(repo, "b4.json", "[1]")
    assert "must hold a JSON object" in design("capture", "--baseline", "b4.json",
                                               "--confirmed").stderr
    write(repo, "b5.json", json.dumps({"tokens": {"radius": 3}}))
    assert "tokens.radius must be a list" in design("capture", "--baseline", "b5.json",
                                                    "--confirmed").stderr
    shots = repo / "shots"
    shots.mkdir()
    (shots / "home.png").write_bytes((ROOT / "examples" / "design-inbox" /
                                      "magazine-card.png").read_bytes())
    write(repo, "b6.json", json.dumps({"tokens": {"radius": [tok("card", 20, "vp")]},
                                       "images": ["shots/home.png"]}))
    data = json.loads(ok("capture", "--baseline", "b6.json", "--confirmed", "--json").stdout)
    made = json.loads((repo / LIB / "manifest.json").read_text("utf-8"))["cards"][0]
    assert data["card"] == made["id"] == "DSG-0001"
    assert made["title"] == "Project pattern · b6" and made["tags"] == ["project", "radius"]
    assert (repo / LIB / made["images"][0]["path"]).is_file()
    write(repo, "b7.json", json.dumps({"tokens": {"radius": [tok("card", 2)]},
                                       "images": ["shots/none.png"]}))
    assert "baseline image shots/none.png: no such file" in \
        design("capture", "--baseline", "b7.json", "--confirmed").stderr


# -- check-refs ------------------------------------------------------------------------

def _spec(repo: Path, criteria: list[dict], name: str = "spec.json") -> str:
    write(repo, name, json.dumps({"kind": "spec", "criteria": criteria}, ensure_ascii=False))
    return name


def test_rag_f_spec_refs_known_unknown_blocked_and_missing(full: Path) -> None:
    ok("feedback", "DSG-0024", "block")
    name = _spec(full, [
        {"id": "A-01", "level": "must", "dimension": "aesthetic", "designRefs": ["DSG-0034"],
         "actual": {"radius.card": "15vp", "palette.surface": "#121212"}},
        {"id": "A-02", "level": "must", "dimension": "aesthetic", "designRefs": ["DSG-0999"]},
        {"id": "A-03", "level": "should", "designRefs": ["DSG-0024"]},
        {"id": "A-04", "level": "must", "aesthetic": True},
        {"id": "F-01", "level": "must", "dimension": "function"},
        {"id": "A-05", "level": "must", "category": "aesthetic", "designRef": "DSG-0035"},
    ])
    res = design("check-refs", name, "--json")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[-1] == "genesis: error: 2 design reference error(s) in spec.json"
    report = json.loads(res.stdout)
    assert report["ok"] is False and report["kind"] == "spec"
    assert [(e["code"], e["item"]) for e in report["errors"]] == [
        ("E_DESIGN_REF_UNKNOWN", "A-02"), ("E_DESIGN_REF_BLOCKED", "A-03")]
    assert [(w["code"], w["item"]) for w in report["warnings"]] == [
        ("W_AEST_NO_DESIGN_REF", "A-04"), ("W_DESIGN_REF_LICENSE", "A-05")]
    assert report["design"]["refs"] == ["DSG-0034", "DSG-0035"]
    cmp = report["comparison"][0]
    assert cmp["item"] == "A-01" and cmp["ref"] == "DSG-0034"
    pairs = {p["token"]: (p["reference"], p["actual"]) for p in cmp["pairs"]}
    assert pairs["radius.card"] == ("16vp", "15vp")
    assert pairs["palette.surface"] == ("#121212", "#121212")
    assert pairs["palette.outline"] == ("#2C2C2C", None)
    text = design("check-refs", name)
    assert "A-01  DSG-0034  reference comparison: palette.surface #121212 vs #121212" in \
        text.stdout
    assert "error E_DESIGN_REF_UNKNOWN: A-02: designRef DSG-0999 is not in the library" in \
        text.stdout
    assert "genesis: warning: W_AEST_NO_DESIGN_REF: A-04: aesthetic must without designRefs " \
           "while the library has cards" in text.stderr


def test_rag_g_audit_report_has_reference_comparison(full: Path) -> None:
    write(full, "audit.json", json.dumps({"checks": [
        {"id": "A-02", "designRef": "DSG-0036", "status": "pass",
         "actual": {"radius": "19vp", "spacing.page": "20vp"}},
    ]}))
    res = ok("check-refs", "audit.json", "--json")
    report = json.loads(res.stdout)
    assert report["kind"] == "audit" and report["ok"] is True
    assert report["design"]["refs"] == ["DSG-0036"]
    pairs = {p["token"]: (p["reference"], p["actual"]) for p in report["comparison"][0]["pairs"]}
    assert pairs["radius.card"] == ("20vp", "19vp") and pairs["spacing.page"] == ("20vp", "20vp")
    assert report["comparison"][0]["refTokens"]["radius"] == [
        {"name": "card", "value": 20, "unit": "vp"}]
    assert ok("check-refs", "audit.json").stdout.endswith(
        "audit.json: 1 ref(s), 0 error(s), 0 warning(s)\n")
    write(full, "audit2.json", json.dumps({"checks": [{"id": "C-1", "designRefs": ["DSG-9999"]}]}))
    bad = design("check-refs", "audit2.json", "--json")
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["errors"][0]["code"] == "E_DESIGN_REF_UNKNOWN"


def test_check_refs_without_a_library_only_warns(repo: Path) -> None:
    name = _spec(repo, [{"id": "A-01", "level": "must", "dimension": "aesthetic",
                         "designRefs": ["DSG-0001"]}])
    res = ok("check-refs", name, "--json")
    report = json.loads(res.stdout)
    assert report["ok"] is True and report["library"]["available"] is False
    assert [w["code"] for w in report["warnings"]] == ["W_DESIGN_LIBRARY_UNAVAILABLE"]
    ok("init")  # an empty library: no aesthetic warning either
    empty = json.loads(ok("check-refs", _spec(repo, [{"id": "A-9", "level": "must",
                                                      "aesthetic": True}]), "--json").stdout)
    assert empty["warnings"] == []
    # RAG-J: a corrupt index does not matter to check-refs, which reads the manifest
    (repo / LIB / "index.json").write_text("{", encoding="utf-8")
    assert ok("check-refs", name, "--json")


def test_check_refs_input_errors(repo: Path) -> None:
    assert design("check-refs", "none.json").stderr.strip() == \
        "genesis: error: none.json: no such file"
    write(repo, "a.json", "{")
    assert "a.json is not valid JSON" in design("check-refs", "a.json").stderr
    write(repo, "b.json", "[]")
    res = design("check-refs", "b.json")
    assert res.exit_code == 2 and "expected a JSON object" in res.stderr
    write(repo, "c.json", '{"kind": "spec"}')
    res = design("check-refs", "c.json")
    assert res.exit_code == 2 and "no criteria or checks list" in res.stderr


def test_status_library_states(full: Path) -> None:
    assert json.loads(ok("status", "--json").stdout)["library"]["state"] == "ok"
    lib = open_library(full)
    assert status(lib)["library"]["available"] is True
    with pytest.raises(GenesisError):
        request(lib, "")
