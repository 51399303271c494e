"""The one tokenizer (issue 3 §1): identifiers, CJK bigrams, stopwords, synonyms, determinism."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from genesis_git.text.tokens import (
    SYNONYM_WEIGHT,
    QueryTerm,
    SynonymTable,
    analyze_query,
    default_synonyms,
    tokenize,
    unique,
)


def test_lower_cased() -> None:
    assert tokenize("README Install GUIDE") == ["readme", "install", "guide"]


def test_camel_case_keeps_whole_identifier_and_parts() -> None:
    assert tokenize("OrderController") == ["ordercontroller", "order", "controller"]


def test_snake_and_kebab_case() -> None:
    assert tokenize("create_order") == ["createorder", "create", "order"]
    assert tokenize("discount-code") == ["discountcode", "discount", "code"]


def test_acronyms_and_digits_in_identifiers() -> None:
    assert tokenize("HTTPServer") == ["httpserver", "http", "server"]
    assert tokenize("parse_URL2") == ["parseurl2", "parse", "url2"]


def test_single_part_identifier_is_one_token() -> None:
    assert tokenize("orders") == ["order"]


def test_plural_fold_is_light() -> None:
    assert tokenize("orders categories class status analysis") == [
        "order", "category", "class", "status", "analysis"]


def test_cjk_runs_become_bigrams() -> None:
    assert tokenize("订单表新增字段") == ["订单", "单表", "表新", "新增", "增字", "字段"]


def test_single_cjk_character_stays_a_token() -> None:
    assert tokenize("表") == ["表"]
    assert tokenize("表 table") == ["表", "table"]


def test_cjk_run_is_cut_at_stop_characters() -> None:
    # 的 and 和 cut the run: 我们 (a stopword bigram) goes, 订单 and 用户 stay
    assert tokenize("我们的订单和用户") == ["订单", "用户"]


def test_mixed_chinese_and_english() -> None:
    assert tokenize("订单表新增字段 discount_code") == [
        "订单", "单表", "表新", "新增", "增字", "字段", "discountcode", "discount", "code"]


def test_english_stopwords_and_single_letters_dropped() -> None:
    assert tokenize("the order of a table is x") == ["order", "table"]


def test_chinese_stopword_bigrams_dropped() -> None:
    assert "一个" not in tokenize("一个订单")
    assert "我们" not in tokenize("我们需要")
    assert "订单" in tokenize("一个订单")


def test_full_width_text_is_normalised() -> None:
    assert tokenize("ＯｒｄｅｒＩＤ １２３") == ["orderid", "order", "id", "123"]


def test_punctuation_separates() -> None:
    assert tokenize("a.b(order);table,用户。登录") == ["order", "table", "用户", "登录"]


def test_deterministic_across_processes() -> None:
    text = "OrderController 订单表新增字段 create_order 的 用户登录"
    code = ("from genesis_git.text.tokens import tokenize, analyze_query;"
            f"print(tokenize({text!r}));print([t.term for t in analyze_query({text!r})])")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={"PYTHONHASHSEED": seed}, check=True).stdout
            for seed in ("1", "2", "3")}
    assert len(runs) == 1
    assert tokenize(text) == tokenize(text)


def test_unique_keeps_first_order() -> None:
    assert unique(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


def _terms(query: str, table: SynonymTable | None = None) -> dict[str, QueryTerm]:
    return {t.term: t for t in analyze_query(query, table)}


@pytest.mark.parametrize(("query", "expected"), [
    ("表", {"table"}),
    ("字段", {"field", "column"}),
    ("订单", {"order"}),
    ("用户", {"user"}),
    ("登录", {"login", "auth"}),
    ("接口", {"api", "endpoint"}),
    ("间距", {"留白", "margin", "padding", "gap"}),
    ("留白", {"间距", "margin"}),
    ("圆角", {"radius", "corner"}),
    ("table", {"表"}),
    ("padding", {"间距", "留白"}),
])
def test_default_synonyms_cover_the_domain(query: str, expected: set[str]) -> None:
    terms = _terms(query)
    assert expected <= set(terms)
    for name in expected:
        assert terms[name].weight == SYNONYM_WEIGHT
        assert terms[name].origin.startswith("synonym:")


def test_query_terms_have_full_weight_and_origin() -> None:
    terms = analyze_query("OrderController login")
    assert [t.term for t in terms if t.origin == "query"] == [
        "ordercontroller", "order", "controller", "login"]
    assert all(t.weight == 1.0 for t in terms if t.origin == "query")
    assert _terms("login")["auth"].origin == "synonym:login"


def test_synonym_of_a_cjk_word_inside_a_longer_run() -> None:
    # 订单表新增字段 has no token 表, but the synonym table finds the word in the text
    terms = _terms("订单表新增字段")
    assert terms["table"].origin == "synonym:表"
    assert terms["order"].origin == "synonym:订单"
    assert terms["column"].origin == "synonym:字段"
    assert terms["订单"].weight == 1.0


def test_query_term_is_not_demoted_by_a_synonym() -> None:
    terms = _terms("order 订单")
    assert terms["order"].weight == 1.0
    assert terms["订单"].weight == 1.0


def test_user_synonyms_extend_the_defaults() -> None:
    table = SynonymTable(extra={"sku": ["库存单位", "stock-unit"]})
    terms = _terms("sku", table)
    assert {"库存", "存单", "单位", "stockunit", "stock", "unit"} <= set(terms)
    assert _terms("库存单位", table)["sku"].origin == "synonym:库存单位"
    assert "table" in _terms("表", table)  # defaults kept
    assert "sku" not in _terms("库存单位")  # the default table is untouched


def test_synonym_lookup_is_normalised_and_bidirectional() -> None:
    table = SynonymTable(groups=(("Widget", "部件"),))
    assert table.lookup("widget") == ["部件"]
    assert table.lookup("部件") == ["widget"]
    assert table.lookup("nothing") == []


def test_stopword_only_query_has_no_terms() -> None:
    assert analyze_query("the of and 的 了") == []
    assert analyze_query("") == []


def test_default_table_is_shared() -> None:
    assert default_synonyms() is default_synonyms()


@pytest.mark.parametrize("word, expected", [
    ("1A", ["1a", "1"]),            # a digit then a capital is two parts
    ("A1", ["a1"]),
    ("H2TP", ["h2tp", "h2", "tp"]),
    ("Order2", ["order2"]),
    ("XMLHttpRequest", ["xmlhttprequest", "xml", "http", "request"]),
    ("__init__", ["init"]),
    ("a_B-c", ["abc"]),             # single letters are dropped, also as parts
    ("--", []),
    ("getOrders", ["getorder", "get", "order"]),
])
def test_identifier_edge_cases(word: str, expected: list[str]) -> None:
    assert tokenize(word) == expected
    assert tokenize(f"x {word} x") == expected  # the same inside ASCII text and ...
    assert tokenize(f"订 {word}") == ["订", *expected]  # ... inside text that is not ASCII


def test_index_terms_are_the_tokens_joined_and_their_ids() -> None:
    from genesis_git.text.tokens import VOCABULARY, index_terms

    text = "OrderController.create_order(订单表) the a 表 orders\n\tHTTPServer"
    joined, ids = index_terms(text)
    assert joined == " ".join(tokenize(text))
    assert [VOCABULARY.tokens[i] for i in ids] == tokenize(text)
    assert index_terms("the of a") == ("", [])


def test_a_full_vocabulary_starts_a_new_generation(monkeypatch) -> None:
    from genesis_git.text.tokens import VOCABULARY, Vocabulary, index_terms

    index_terms("alpha beta")
    before = VOCABULARY.generation
    monkeypatch.setattr(Vocabulary, "MAX", 0)
    VOCABULARY.reset_if_full()
    assert VOCABULARY.generation == before + 1 and len(VOCABULARY) == 0
    joined, ids = index_terms("alpha beta")  # ids are handed out again, from 0
    assert joined == "alpha beta" and ids == [0, 1]


def test_first_token_is_the_first_token_of_tokenize() -> None:
    """The impact graph reads only a name's first token; its shortcut must agree exactly."""
    import re
    import sysconfig

    from genesis_git.text.tokens import first_token

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    source = "".join((stdlib / f).read_text(encoding="utf-8")
                     for f in ("argparse.py", "subprocess.py", "typing.py", "dataclasses.py"))
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
    tricky = {"", "x", "-x", "a.b", "__init__", "_", "__", "HTTPServer", "getHTTPResponse",
              "orders", "categories", "the", "the_order", "OrderID", "Ｏｒｄｅｒ", "订单表",
              "x订单", "a-b-c", "9lives", "ids_", "is", "s", "classes.Meta", "get value",
              "__slots__", "ABC", "AbC", "v2_api", "news"}
    assert len(names) > 2000
    for name in sorted(names | tricky):
        toks = tokenize(name)
        assert first_token(name) == (toks[0] if toks else None), name
