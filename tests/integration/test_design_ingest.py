"""Ingest: docs, inbox (RAG-K), image headers, manifest import, chunking and card validation."""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from pathlib import Path

import pytest

from genesis_git.design.cards import (
    CardRejected,
    build_card,
    chunk_card,
    chunk_sha,
    normalize_tokens,
    split_text,
)
from genesis_git.design.docparse import parse_doc
from genesis_git.design.images import image_info
from genesis_git.design.library import open_library

from helpers import (
    INBOX_EXAMPLE,
    LIB,
    card,
    copy_inbox,
    design,
    ok,
    tok,
    write,
    write_manifest,
)


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                              0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + b"\xff" + sof + b"\xff\xd9"


def _manifest(repo: Path) -> dict:
    return json.loads((repo / LIB / "manifest.json").read_text(encoding="utf-8"))


def test_image_headers_give_width_and_height() -> None:
    assert image_info(_png(8, 5)) == ("png", 8, 5)
    assert image_info(_jpeg(640, 480)) == ("jpg", 640, 480)
    assert image_info(b"GIF89a....") is None
    assert image_info(b"\xff\xd8\xff") is None
    assert image_info(b"\xff\xd8\x00\x00") is None
    assert image_info(b"\xff\xd8\xff\xc0\x00") is None
    assert image_info(b"\xff\xd8\xff\xc0\x00\x11\x08\x00") is None
    assert image_info(b"\xff\xd8\xff\x01\xff") is None
    assert image_info((INBOX_EXAMPLE / "magazine-card.png").read_bytes()) == ("png", 8, 8)


def test_inbox_copies_images_by_sha_and_rejects_a_missing_license(repo: Path) -> None:
    """RAG-K, first half: the example without a license is rejected with its reason."""
    copy_inbox(repo)
    res = design("ingest", "inbox")
    assert res.exit_code == 1
    assert res.stdout == "inbox: 2 added, 0 updated, 0 unchanged, 0 skipped, 1 rejected\n"
    assert res.stderr.splitlines() == [
        'genesis: warning: rejected inbox/empty-list: empty-list.meta.json has no license (add '
        '"license": "CC-BY-4.0", or "unknown" to store it with a warning)',
        "genesis: error: 1 item(s) rejected (fix them and ingest again; the others were "
        "ingested)",
    ]
    cards = _manifest(repo)["cards"]
    assert [c["title"] for c in cards] == ["深色首页卡片 · 1vp 描边代替阴影",
                                           "杂志感卡片 · 大留白 + 20vp 圆角"]
    image = cards[1]["images"][0]
    data = (INBOX_EXAMPLE / "magazine-card.png").read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    assert image == {"path": f"refs/{sha}.png", "sha256": sha,
                     "alt": "home screen card on warm white", "width": 8, "height": 8}
    assert (repo / LIB / image["path"]).read_bytes() == data
    assert cards[1]["source"] == {"kind": "user", "ref": "team moodboard, home screen study",
                                  "license": "CC-BY-4.0"}
    assert (repo / LIB / "inbox" / "empty-list.png").exists()


def test_unknown_license_is_stored_with_a_warning(repo: Path) -> None:
    """RAG-K, second half (the brief side is in test_design_protocol)."""
    copy_inbox(repo, unknown_license_for_empty=True)
    res = ok("ingest", "inbox", "--json")
    report = json.loads(res.stdout)
    assert len(report["added"]) == 3 and report["rejected"] == []
    assert report["warnings"] == ["DSG-0002 (inbox/empty-list): license unknown; stored, kept "
                                  "out of briefs and ranked lower"]
    assert f"genesis: warning: {report['warnings'][0]}" in res.stderr


def test_inbox_rejections_have_reasons(repo: Path) -> None:
    inbox = repo / LIB / "inbox"
    write(repo, f"{LIB}/inbox/lonely.png", "x")
    write(repo, f"{LIB}/inbox/orphan.meta.json", "{}")
    write(repo, f"{LIB}/inbox/broken.meta.json", "{not json")
    (inbox / "broken.png").write_bytes(_png(2, 2))
    write(repo, f"{LIB}/inbox/untitled.meta.json", json.dumps({"license": "CC0-1.0"}))
    (inbox / "untitled.png").write_bytes(_png(2, 2))
    write(repo, f"{LIB}/inbox/fake.meta.json", json.dumps(
        {"title": "t", "tags": ["a"], "source": "s", "license": "CC0-1.0"}))
    (inbox / "fake.jpg").write_bytes(b"not an image")
    write(repo, f"{LIB}/inbox/list.meta.json", "[1]")
    (inbox / "list.png").write_bytes(_png(2, 2))
    res = design("ingest", "inbox", "--json")
    assert res.exit_code == 1
    reasons = {r["name"]: r["reason"] for r in json.loads(res.stdout)["rejected"]}
    assert reasons == {
        "inbox/broken": reasons["inbox/broken"],
        "inbox/fake": "fake.jpg is not a PNG or JPEG image",
        "inbox/list": "list.meta.json must hold a JSON object",
        "inbox/lonely.png": "missing lonely.meta.json (required: title, tags, source, license)",
        "inbox/orphan.meta.json": "no image orphan.png or orphan.jpg next to it",
        "inbox/untitled": "untitled.meta.json lacks title, tags, source (required: title, tags, "
                          "source, license)",
    }
    assert reasons["inbox/broken"].startswith("broken.meta.json is not valid JSON")
    assert list((repo / LIB / "refs").iterdir()) == []


def test_inbox_meta_change_updates_the_card(repo: Path) -> None:
    copy_inbox(repo)
    design("ingest", "inbox")
    meta = repo / LIB / "inbox" / "magazine-card.meta.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["tags"].append("warm")
    meta.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    report = json.loads(design("ingest", "inbox", "--json").stdout)
    assert report["updated"] == ["DSG-0002"] and report["added"] == []
    assert "warm" in _manifest(repo)["cards"][1]["tags"]


def test_docs_become_one_card_each_with_summary_and_values(repo: Path) -> None:
    write(repo, "ux/cards.md", """---
title: Card layout
license: CC-BY-4.0
source: Huawei UX · card layout
tags: [card, spacing]
url: https://example.org/cards
---
# ignored heading

Cards hold one primary action. Page margin is 16vp and the card radius 20vp.

```
radius: 99vp inside code is ignored
```

Body font is 16fp with a line height of 24fp; the surface is #FAF8F4.
Contrast of body text at least 4.5:1; enter animation 240ms.

- Do: one primary action per card
- Don't: shadows and outlines together
- ❌ 同屏出现两种主色
| table | 12vp |
""")
    write(repo, "ux/zh.md", "# 深色模式\n\n深色卡片用 1vp 描边，间距 12vp，动画 0.3s。\n\n- 避免：纯黑背景\n")
    res = ok("ingest", "docs", "ux", "--json")
    report = json.loads(res.stdout)
    assert report["added"] == ["DSG-0001", "DSG-0002"]
    assert report["warnings"] == ["DSG-0002 (ux/zh.md): license unknown; stored, kept out of "
                                  "briefs and ranked lower"]
    first, second = _manifest(repo)["cards"]
    assert first["title"] == "Card layout"
    assert first["summary"] == ("Cards hold one primary action. Page margin is 16vp and the card "
                                "radius 20vp.")
    assert first["rationale"].startswith("Body font is 16fp")
    assert first["source"] == {"kind": "official", "ref": "Huawei UX · card layout",
                               "license": "CC-BY-4.0", "url": "https://example.org/cards"}
    assert first["tags"] == ["card", "spacing"]
    assert first["dos"] == ["one primary action per card"]
    assert first["donts"] == ["shadows and outlines together", "同屏出现两种主色"]
    tokens = first["tokens"]
    assert tokens["spacing"] == [{"name": "margin", "value": 16, "unit": "vp"}]
    assert tokens["radius"] == [{"name": "radius", "value": 20, "unit": "vp"}]
    assert tokens["type"] == [{"name": "font", "value": 16, "unit": "fp"},
                              {"name": "line-height", "value": 24, "unit": "fp"}]
    assert tokens["palette"] == [{"name": "color", "value": "#faf8f4"}]
    assert tokens["contrast"] == [{"name": "ratio", "value": 4.5, "unit": ":1"}]
    assert tokens["motion"] == [{"name": "animation", "value": 240, "unit": "ms"}]
    assert "99" not in json.dumps(tokens)
    assert second["title"] == "深色模式" and second["source"]["license"] == "unknown"
    assert second["donts"] == ["纯黑背景"]
    assert second["tokens"]["spacing"] == [{"name": "间距", "value": 12, "unit": "vp"}]
    assert second["tokens"]["border"] == [{"name": "描边", "value": 1, "unit": "vp"}]
    assert second["tokens"]["motion"] == [{"name": "动画", "value": 0.3, "unit": "s"}]


def test_parse_doc_without_front_matter_or_heading() -> None:
    raw = parse_doc("plain text 8dp\n", "notes/gap.md")
    assert raw["title"] == "gap" and raw["summary"] == "plain text 8dp"
    assert raw["tokens"] == {"values": [{"name": "value", "value": 8, "unit": "dp"}]}
    assert raw["license"] == "unknown" and raw["tags"] == ["values"]
    unterminated = parse_doc("---\ntitle: x\n", "a.md")
    assert unterminated["title"] == "a"


def test_docs_folder_must_exist(repo: Path) -> None:
    res = design("ingest", "docs", "nowhere")
    assert res.exit_code == 1
    assert res.stderr.strip() == "genesis: error: docs folder nowhere: no such directory"


def test_manifest_import_copies_images_and_skips_blocked_and_duplicates(repo: Path) -> None:
    other = repo / "vendor" / "lib"
    png = _png(4, 3)
    sha = hashlib.sha256(png).hexdigest()
    (other / "refs").mkdir(parents=True)
    (other / "refs" / f"{sha}.png").write_bytes(png)
    cards = [
        card(1, "Imported card", ["card"], {"radius": [tok("card", 16, "vp")]}, "Why."),
        card(2, "Blocked there", ["x"], {}, "No.", status="blocked"),
        card(3, "No license", ["x"], {}, "No.", license=""),
        card(4, "Missing image", ["x"], {"spacing": [tok("gap", 8, "vp")]}, "Gap."),
    ]
    cards[0]["images"] = [{"path": f"refs/{sha}.png", "sha256": sha, "alt": "a card"}]
    cards[3]["images"] = [{"path": "refs/gone.png"}]
    write_manifest(other / "manifest.json", [*cards, "not a card"])  # type: ignore[list-item]
    res = design("ingest", "manifest", "vendor/lib/manifest.json", "--json")
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    assert report["added"] == ["DSG-0001", "DSG-0002"]
    assert report["skipped"] == [{"name": "SRC-0002", "reason": "blocked in the source library"}]
    assert {r["name"] for r in report["rejected"]} == {"vendor/lib/manifest.json",
                                                       "vendor/lib/manifest.json#SRC-0003"}
    assert report["warnings"] == ["SRC-0004: image refs/gone.png is missing; imported without it"]
    imported = _manifest(repo)["cards"][0]
    assert imported["images"] == [{"path": f"refs/{sha}.png", "sha256": sha, "alt": "a card",
                                   "width": 4, "height": 3}]
    assert (repo / LIB / "refs" / f"{sha}.png").read_bytes() == png
    # importing our own manifest adds nothing: every card is already there
    own = json.loads(design("ingest", "manifest", f"{LIB}/manifest.json", "--json").stdout)
    assert own["added"] == [] and len(own["skipped"]) == 2


def test_manifest_import_errors(repo: Path) -> None:
    res = design("ingest", "manifest", "none.json")
    assert res.exit_code == 1
    assert res.stderr.strip() == "genesis: error: manifest none.json: no such file"
    write(repo, "bad.json", "{")
    assert "manifest bad.json cannot be read" in design("ingest", "manifest", "bad.json").stderr
    write(repo, "nocards.json", '{"cards": 3}')
    assert "manifest nocards.json has no cards list" in \
        design("ingest", "manifest", "nocards.json").stderr


def test_chunks_are_sections_of_at_most_400_chars() -> None:
    long = " ".join(f"word{i}" for i in range(150))
    c = {"id": "DSG-0001", "title": "T", "summary": "S", "tags": ["a"],
         "source": {"ref": "R"}, "tokens": {"radius": [tok("card", 20, "vp")]},
         "rationale": long, "dos": ["x", "x"], "donts": []}
    chunks = chunk_card(c)
    sections = [ch["section"] for ch in chunks]
    assert sections[:2] == ["summary", "tokens"] and "donts" not in sections
    rationale = [ch for ch in chunks if ch["section"] == "rationale"]
    assert len(rationale) == 3 and rationale[0]["chunkId"] == "DSG-0001#rationale-1"
    assert all(len(ch["text"]) <= 400 for ch in chunks)
    assert chunks[1]["text"] == "radius card 20vp"
    assert chunk_sha("A  b\nC") == hashlib.sha256(b"a b c").hexdigest()
    assert split_text("。" * 10 + "x" * 500)[0] == "。" * 10 + "x" * 390
    assert split_text("一二三。四五六", 5) == ["一二三。", "四五六"]


def test_card_validation_messages() -> None:
    with pytest.raises(CardRejected, match="no title"):
        build_card({}, kind="user")
    with pytest.raises(CardRejected, match="no license"):
        build_card({"title": "t"}, kind="user")
    with pytest.raises(CardRejected, match="source kind 'stolen'"):
        build_card({"title": "t", "source": {"kind": "stolen", "license": "x"}}, kind="user")
    with pytest.raises(CardRejected, match="source must be"):
        build_card({"title": "t", "source": 3, "license": "x"}, kind="user")
    with pytest.raises(CardRejected, match="tags must be a list of strings"):
        build_card({"title": "t", "tags": [{}], "license": "x"}, kind="user")
    with pytest.raises(CardRejected, match="citation must be an object"):
        build_card({"title": "t", "citation": "x", "license": "x"}, kind="user")
    with pytest.raises(CardRejected, match="tokens must be an object"):
        normalize_tokens([1])
    with pytest.raises(CardRejected, match="tokens.radius must be a list"):
        normalize_tokens({"radius": 3})
    with pytest.raises(CardRejected, match="every token needs a value"):
        normalize_tokens({"radius": [{"name": "x"}]})
    with pytest.raises(CardRejected, match="a value must be a number or a string"):
        normalize_tokens({"radius": [{"value": True}]})
    assert normalize_tokens({"Radius": [{"value": 4}], "empty": []}) == \
        {"radius": [{"name": "Radius", "value": 4}]}
    assert build_card({"title": "t", "tags": "one", "license": "x"}, kind="user")["tags"] == ["one"]


def test_rules_ingest_updates_a_changed_card_in_place(repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from genesis_git.design import ingest

    ok("ingest", "rules")
    files = ingest.rule_files()
    name, data = files[0]
    changed = json.loads(data)
    changed["summary"] += " Extra."
    changed.pop("citation")
    patched = [(name, json.dumps(changed).encode()), *files[1:]]
    monkeypatch.setattr(ingest, "rule_files", lambda: patched)
    report = ingest.ingest_rules(open_library(repo))
    assert report.updated == ["DSG-0001"] and report.added == []
    first = _manifest(repo)["cards"][0]
    assert first["summary"].endswith("Extra.") and "citation" not in first
    assert first["createdAt"] <= first["updatedAt"]
