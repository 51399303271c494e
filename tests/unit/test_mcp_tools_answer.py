"""The bounds of an MCP answer: pages that fit, a cursor that continues exactly, long strings
shortened with a mark."""

from __future__ import annotations

import pytest

from genesis_git.kernel.errors import UsageError
from genesis_git.mcp.answer import bounded, cut_strings, json_budget, read_cursor, size


def items(n: int) -> list[dict[str, object]]:
    return [{"path": f"src/{i % 7}.py", "line": i, "text": "订单 order " * (i % 23)}
            for i in range(n)]


@pytest.mark.parametrize("limit", [4096, 9000, 65536])
def test_paging_returns_every_item_once_within_the_budget(limit: int) -> None:
    data = {"query": "order", "warnings": [], "results": items(700)}
    args = {"query": "order", "k": 700}
    seen: list[object] = []
    cursor = None
    for _ in range(1000):
        page = bounded("search", args, data, "results", limit, cursor)
        assert size(page) <= json_budget(limit)
        assert page["truncated"]["offset"] == len(seen)
        seen += page["results"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == data["results"]


def test_an_answer_that_fits_is_unchanged_and_a_huge_string_is_marked() -> None:
    small = {"query": "x", "results": items(3)}
    assert bounded("search", {"query": "x"}, small, "results", 65536, None) is small
    note = {"id": 1, "text": "a" * 200_000, "role": "note"}
    cut = bounded("session_note", {}, note, None, 8192, None)
    assert size(cut) <= json_budget(8192)
    assert cut["text"].endswith("characters]") and "of 200000 characters" in cut["text"]
    assert cut["truncated"]["strings_cut"] == 1 and cut["role"] == "note"
    shortened, n = cut_strings({"a": "é" * 5000, "b": "short"}, 1000)
    assert n >= 1 and size(shortened) <= 1000 and shortened["b"] == "short"


def test_a_cursor_belongs_to_its_call() -> None:
    data = {"results": items(400)}
    first = bounded("search", {"query": "a"}, data, "results", 4096, None)
    assert read_cursor("search", {"query": "a", "repo": "/elsewhere"}, first["next_cursor"])[0] > 0
    for tool, args, cursor in (("search", {"query": "b"}, first["next_cursor"]),
                               ("impact", {"query": "a"}, first["next_cursor"]),
                               ("search", {"query": "a"}, "%%%")):
        with pytest.raises(UsageError, match="^cursor: "):
            read_cursor(tool, args, cursor)


def test_messages_name_the_tools_arguments_not_the_commands_flags() -> None:
    from genesis_git.mcp.common import tool_words

    assert tool_words("--with-code skipped: the story has no text to search for") == (
        "with_code skipped: the story has no text to search for")
    assert tool_words("no stories yet: commit with the id in the subject, or run `genesis story "
                      "rebuild` to read them from git log") == (
        "no stories yet: commit with the id in the subject")
    assert tool_words("shares it (--allow-secret); a-b--c stays") == (
        "shares it (allow_secret); a-b--c stays")
    assert tool_words("the query '--help me' has only stopwords (use --mode)") == (
        "the query '--help me' has only stopwords (use mode)")


def test_a_cursor_refuses_a_list_that_changed_before_it() -> None:
    data = {"results": items(400)}
    first = bounded("search", {"query": "a"}, data, "results", 4096, None)
    changed = {"results": [{"path": "new.py", "line": 0, "text": ""}, *items(400)]}
    with pytest.raises(UsageError, match="^cursor: the results changed since"):
        bounded("search", {"query": "a"}, changed, "results", 4096, first["next_cursor"])
    grown = {"results": [*items(400), *items(5)]}  # what comes after the cursor may change
    page = bounded("search", {"query": "a"}, grown, "results", 4096, first["next_cursor"])
    assert page["truncated"]["offset"] == len(first["results"])
