"""The Chinese -> English lexicon: its file, forward maximum matching, and the query terms it adds."""

from __future__ import annotations

from pathlib import Path

from genesis_git.text import lexicon as lex
from genesis_git.text.lexicon import english_terms, expansions, load, parse
from genesis_git.text.tokens import (
    DEFAULT_SYNONYMS,
    LEXICON_WEIGHT,
    MAX_LEXICON_TERMS,
    analyze_query,
    analyze_query_counted,
    is_cjk,
)


def test_progress_bar_width_is_english() -> None:
    assert english_terms("进度条 宽度") == ["progress", "bar", "progressbar", "width"]


def test_the_longest_term_wins() -> None:
    # 进度条 is one term; 进度 alone would bring only "progress"
    assert [term for term, _ in expansions("进度条")] == ["进度条"]
    assert [term for term, _ in expansions("显示进度")] == ["显示", "进度"]
    assert [term for term, _ in expansions("环境变量")] == ["环境变量"]


def test_every_default_synonym_still_reaches_its_english() -> None:
    for group in DEFAULT_SYNONYMS:
        english = {w for w in group if w.isascii()}
        for member in group:
            if member and all(is_cjk(ch) for ch in member) and english:
                got = set(english_terms(member))
                assert got & english, (member, got, english)


def test_ascii_and_unknown_text_bring_nothing() -> None:
    assert english_terms("progress bar width") == []
    assert english_terms("") == []
    assert english_terms("鼹鼠") == []


def test_words_the_query_already_has_are_not_repeated() -> None:
    assert "width" not in english_terms("宽度 width")
    assert english_terms("full-width 宽度") == []  # full-width gives fullwidth, full and width
    assert english_terms("fullwidth 宽度") == ["width"]  # one word: fullwidth only


def test_full_width_and_compatibility_forms_are_normalised() -> None:
    assert english_terms("\u2f8f\uff3f") == english_terms("\u884c\uff3f")  # radical 行 -> 行


def test_parse_skips_comments_blank_and_bad_lines() -> None:
    entries = parse(["# a comment", "", "no tab here", "abc\tnot chinese", "回调\tcallback, call back",
                     "回调\tcallback"])
    assert list(entries) == ["回调"]
    assert [s.tokens for s in entries["回调"]] == [("callback",), ("call", "back")]


def test_a_missing_file_leaves_the_synonyms(tmp_path: Path) -> None:
    table = load(tmp_path / "absent.tsv")
    assert table.senses("订单") and not table.senses("进度条")


def test_the_file_is_read_once_and_only_when_asked(monkeypatch: object) -> None:
    lex._LEXICON = None
    assert english_terms("plain ascii") == [] and lex._LEXICON is None
    english_terms("宽度")
    first = lex._LEXICON
    english_terms("高度")
    assert first is not None and lex._LEXICON is first


def test_the_shipped_file_is_small_and_every_line_parses() -> None:
    assert lex.LEXICON_FILE.stat().st_size < 300_000
    lines = lex.LEXICON_FILE.read_text(encoding="utf-8").splitlines()
    entries = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    assert len(parse(entries)) == len(entries) >= 500  # no duplicate, no unreadable line


def test_search_terms_carry_the_lexicon_only_when_asked() -> None:
    plain = analyze_query("进度条 宽度")
    assert {t.term for t in plain} == {"进度", "度条", "宽度"}
    terms, _ = analyze_query_counted("进度条 宽度", lexicon=True)
    added = {t.term: t for t in terms if t.origin.startswith("lexicon:")}
    assert set(added) == {"progress", "bar", "progressbar", "width"}
    assert added["width"].origin == "lexicon:宽度" and added["width"].weight == LEXICON_WEIGHT


def test_a_long_chinese_text_adds_a_bounded_number_of_words() -> None:
    text = "，".join(["进度条", "宽度", "颜色", "终端", "参数", "选项", "回调", "装饰器", "上下文",
                    "异常", "补全", "分页", "编辑器", "路径", "编码", "测试", "文档", "版本"] * 3)
    terms, _ = analyze_query_counted(text, lexicon=True)
    assert sum(t.origin.startswith("lexicon:") for t in terms) == MAX_LEXICON_TERMS
