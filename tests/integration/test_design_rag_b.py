"""RAG-B: a fixed fixture of 24 cards and 8 queries; precision@3 = 8/8, and runs are identical."""

from __future__ import annotations

import json
from pathlib import Path

from genesis_git.design.library import open_library
from genesis_git.design.search import search

from helpers import card, ok, tok, write_manifest

FIXTURE = [
    card(1, "杂志感卡片 · 大留白 + 20vp 圆角", ["card", "magazine", "light", "卡片"],
         {"radius": [tok("card", 20, "vp")], "palette": [tok("background", "#FAF8F4")]},
         "留白承担层级，圆角只做一处强调。", summary="暖白底、较大行高、单张卡片只放一个主操作"),
    card(2, "深色首页卡片 · 1vp 描边代替阴影", ["card", "dark", "深色"],
         {"palette": [tok("surface", "#121212")], "border": [tok("card", 1, "vp")]},
         "深色下阴影不可见，用描边区分层级。"),
    card(3, "列表空态 · 一句说明 + 一个主操作", ["empty", "list", "空态"],
         {"layout": [tok("primary-actions", 1)]}, "空态要教会下一步。"),
    card(4, "Login form spacing · 12vp between fields", ["form", "spacing", "login"],
         {"spacing": [tok("field-gap", 12, "vp")]}, "Group label and field tightly."),
    card(5, "Primary button · 48vp tall", ["button", "target"],
         {"target": [tok("height", 48, "vp")]}, "One primary button per screen."),
    card(6, "Toast motion · 200ms decelerate", ["motion", "toast", "动效"],
         {"motion": [tok("enter", 200, "ms")]}, "Toasts slide in quickly and fade out."),
    card(7, "Page transition · 300ms standard curve", ["motion", "page", "transition"],
         {"motion": [tok("page", 300, "ms")]}, "Full-page changes use the standard curve."),
    card(8, "正文字号 · 16fp 与 24 行高", ["type", "body", "字号"],
         {"type": [tok("body", 16, "fp"), tok("line", 24, "fp")]}, "正文行高约 1.5 倍。"),
    card(9, "Headline type · 24fp bold", ["type", "headline"],
         {"type": [tok("headline", 24, "fp")]}, "One headline per screen."),
    card(10, "Brand palette · primary #1F6FEB", ["color", "brand", "palette"],
         {"palette": [tok("primary", "#1F6FEB")]}, "The brand colour marks the main action only."),
    card(11, "Error state colour · red plus an icon", ["error", "color", "state"],
         {"palette": [tok("error", "#D93025")]}, "Never colour alone: add an icon and a message."),
    card(12, "Focus ring · 2px outline for keyboard users", ["focus", "keyboard", "outline"],
         {"focus": [tok("outline", 2, "px")]}, "Keyboard users must see where focus is."),
    card(13, "Tab bar · 56vp with labels", ["navigation", "tab"],
         {"layout": [tok("tab-bar", 56, "vp")]}, "Icons with labels, at most five tabs."),
    card(14, "Image grid · 4vp gutters", ["grid", "image", "gallery"],
         {"spacing": [tok("gutter", 4, "vp")]}, "Tight gutters let photos read as one surface."),
    card(15, "Settings list · 64vp rows", ["list", "settings"],
         {"layout": [tok("row", 64, "vp")]}, "Rows hold a title, a summary and a control."),
    card(16, "Search field · pill radius", ["search", "input"],
         {"radius": [tok("field", 20, "vp")]}, "A pill-shaped search field sits at the top."),
    card(17, "Onboarding illustration · quiet", ["onboarding", "illustration"],
         {"layout": [tok("pages", 3)]}, "Three pages at most, skippable."),
    card(18, "Chart colours · colour-blind safe", ["chart", "color", "data"],
         {"palette": [tok("series-1", "#0072B2"), tok("series-2", "#E69F00")]},
         "Series differ in lightness as well as hue."),
    card(19, "Dialog · 28vp corners", ["dialog", "modal"],
         {"radius": [tok("dialog", 28, "vp")]}, "Dialogs are the most rounded surface."),
    card(20, "Skeleton loading · 1.5s shimmer", ["loading", "skeleton"],
         {"motion": [tok("shimmer", 1.5, "s")]}, "Skeletons mirror the final layout."),
    card(21, "Badge · 16vp dot", ["badge", "notification"],
         {"layout": [tok("badge", 16, "vp")]}, "Badges count unread items only."),
    card(22, "Avatar · 40vp circle", ["avatar", "profile"],
         {"layout": [tok("avatar", 40, "vp")]}, "Avatars are circles, initials as fallback."),
    card(23, "Divider · 1vp hairline #E0E0E0", ["divider", "list"],
         {"palette": [tok("divider", "#E0E0E0")]}, "Dividers separate, spacing groups."),
    card(24, "Price text · tabular numbers", ["price", "type", "number"],
         {"type": [tok("price", 18, "fp")]}, "Tabular figures keep columns aligned."),
]

# query → the card that must be among the first three
QUERIES = {
    "深色 卡片 描边": "DSG-0002",
    "列表 空态": "DSG-0003",
    "圆角 20vp 杂志感": "DSG-0001",
    "动效 时长 200ms": "DSG-0006",
    "focus outline keyboard": "DSG-0012",
    "#1F6FEB brand color": "DSG-0010",
    "正文 字号 行高": "DSG-0008",
    "dialog corner radius": "DSG-0019",
}


def _run(lib) -> dict[str, list[tuple[str, float]]]:
    return {q: [(r["cardId"], r["score"]) for r in search(lib, q, top=3)["results"]]
            for q in QUERIES}


def test_rag_b_precision_at_3_is_8_of_8_and_stable(repo: Path) -> None:
    assert len(FIXTURE) == 24 and len(QUERIES) == 8
    write_manifest(repo / "fixtures" / "manifest.json", FIXTURE)
    report = json.loads(ok("ingest", "manifest", "fixtures/manifest.json", "--json").stdout)
    assert report["added"] == [f"DSG-{i:04d}" for i in range(1, 25)]
    lib = open_library(repo)
    first = _run(lib)
    hits = sum(1 for q, want in QUERIES.items() if want in [cid for cid, _ in first[q]])
    missed = {q: first[q] for q, want in QUERIES.items()
              if want not in [cid for cid, _ in first[q]]}
    assert hits == 8, f"precision@3 = {hits}/8; missed: {missed}"
    assert _run(open_library(repo)) == first
    via_cli = {q: [(r["cardId"], r["score"]) for r in
                   json.loads(ok("search", q, "--top", "3", "--json").stdout)["results"]]
               for q in QUERIES}
    assert via_cli == first
