"""The prompt for an engine and the parsing of its answer (genesis_git.impact.prompt)."""

from __future__ import annotations

import pytest

from genesis_git.impact.prompt import PromptChunk, build_prompt, parse_answer
from genesis_git.providers.llm import EngineError


def test_prompt_holds_requirement_chunks_with_lines_and_candidates() -> None:
    prompt = build_prompt(
        "订单表新增字段 discount_code\n",
        [PromptChunk("db/schema.sql", 15, 25, "CREATE TABLE orders (\n  id INTEGER\n);", "DB"),
         PromptChunk("docs/x.md", 1, 3, "```py\ncode\n```")],
        [("db/schema.sql", 1.25), ("app/models/order.py", 1.0)])
    assert prompt.startswith("# Requirement\n\n订单表新增字段 discount_code\n\n"
                             "# Repository excerpts (most relevant first)\n\n"
                             "## db/schema.sql:15-25 (DB)\n```sql\nCREATE TABLE orders (\n")
    assert "## docs/x.md:1-3\n~~~~markdown\n```py\ncode\n```\n~~~~\n" in prompt
    assert "- db/schema.sql (1.250)\n- app/models/order.py (1.000)\n" in prompt
    assert prompt.rstrip().endswith("Use only paths that appear above. Most affected first.")


def test_long_chunks_are_cut() -> None:
    prompt = build_prompt("x", [PromptChunk("a.txt", 1, 400, "y" * 5000)])
    assert "y" * 1800 + "\n…" in prompt and "y" * 1801 not in prompt


def test_parse_plain_fenced_and_wrapped_answers() -> None:
    plain = parse_answer('{"impacts": [{"target": "Order", "path": "app/models/order.py", '
                         '"lines": [1, 9], "type": "修改", "detail": " d ", "evidence": "e"}]}')
    assert plain == [{"target": "Order", "kind": "symbol", "path": "app/models/order.py",
                      "lines": [1, 9], "type": "modify", "detail": "d", "evidence": ["e"]}]
    fenced = parse_answer('Here you go:\n```json\n{"impacts": [{"target": "db/schema.sql", '
                          '"type": "新增", "lines": "15-25"}]}\n```\nanything else?')
    assert fenced[0]["kind"] == "file" and fenced[0]["type"] == "add"
    assert fenced[0]["lines"] == [15, 25]
    bare_list = parse_answer('[{"target": "orders.coupon", "kind": "column", "type": "删除", '
                             '"lines": 7}]')
    assert bare_list[0]["kind"] == "field" and bare_list[0]["type"] == "delete"
    assert bare_list[0]["lines"] == [7, 7]


def test_parse_drops_items_without_a_target_and_odd_values() -> None:
    items = parse_answer('{"impacts": [1, {"detail": "no target"}, {"path": "a.py", '
                         '"kind": "module", "type": "rewrite", "lines": [true], '
                         '"evidence": [" ", "a.py:1: x"]}]}')
    assert items == [{"target": "a.py", "kind": "file", "path": "a.py", "lines": None,
                      "type": "modify", "detail": "", "evidence": ["a.py:1: x"]}]


@pytest.mark.parametrize("answer, message", [
    ("I think the orders table changes.", "not valid JSON"),
    ("{broken json", "not valid JSON"),
    ('{"files": []}', 'has no "impacts" list'),
    ('{"impacts": [{"detail": "x"}]}', "lists no impacts"),
])
def test_unusable_answers_raise(answer: str, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        parse_answer(answer)
