"""The screen of ``genesis mcp``: what each line a client sends gets, before the SDK sees it."""

from __future__ import annotations

import pytest

from genesis_git.mcp.screen import ENVELOPE_KEY, Screen


def started() -> Screen:
    screen = Screen()
    verdict = screen.check(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')
    assert verdict.message is not None and verdict.reply is None
    return screen


@pytest.mark.parametrize(("line", "code", "answer_id"), [
    (b"{", -32700, None),
    (b"\xff\xfe", -32700, None),
    (b"nul", -32700, None),
    (b'"ping"', -32600, None),
    (b"42", -32600, None),
    (b"null", -32600, None),
    (b'{"jsonrpc":"1.0","id":3,"method":"ping"}', -32600, 3),
    (b'{"id":3,"method":"ping"}', -32600, 3),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":"x","method":7}', -32600, "x"),
    (b'{"jsonrpc":"2.0","id":"x"}', -32600, "x"),
    (b'{"jsonrpc":"2.0","method":7}', -32600, None),
    (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"q"}', -32602, 4),
    (b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]}', -32602, 4),
    (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":null}', -32602, 4),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call"}', -32602, 5),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":3}}', -32602, 5),
    (b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search",'
     b'"arguments":"q"}}', -32602, 6),
    (b"[]", -32600, None),
])
def test_a_broken_request_gets_one_error_with_its_id_when_it_has_one(
        line: bytes, code: int, answer_id: object) -> None:
    verdict = started().check(line)
    assert verdict.message is None
    assert isinstance(verdict.reply, dict)
    assert verdict.reply["jsonrpc"] == "2.0"
    assert verdict.reply["id"] == answer_id
    assert verdict.reply["error"]["code"] == code
    assert "\n" not in verdict.reply["error"]["message"]


@pytest.mark.parametrize("line", [
    b"", b"   \r\n", b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
])
def test_blank_lines_and_notifications_get_no_answer(line: bytes) -> None:
    verdict = started().check(line)
    assert verdict.reply is None
    assert (verdict.message is None) == (not line.strip())


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"1.0","method":"notifications/x"}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}',
    b'{"jsonrpc":"2.0","id":{"a":1},"result":{}}',
])
def test_a_broken_notification_or_response_is_dropped_silently(line: bytes) -> None:
    verdict = started().check(line)
    assert verdict.reply is None and verdict.message is None


def test_a_batch_answers_each_request_with_its_id_and_skips_notifications() -> None:
    verdict = started().check(b'[{"jsonrpc":"2.0","id":"a","method":"ping"},'
                              b'{"jsonrpc":"2.0","method":"notifications/x"},'
                              b'{"jsonrpc":"2.0","id":{"no":1},"method":"ping"},3]')
    assert isinstance(verdict.reply, list)
    assert [(r["id"], r["error"]["code"]) for r in verdict.reply] == [
        ("a", -32600), (None, -32600), (None, -32600)]
    only_notes = started().check(b'[{"jsonrpc":"2.0","method":"notifications/x"}]')
    assert only_notes.reply is None and only_notes.message is None


def test_before_initialize_only_ping_and_the_newer_envelope_go_through() -> None:
    screen = Screen()
    refused = screen.check(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert refused.reply is not None and not isinstance(refused.reply, list)
    assert refused.reply["error"]["code"] == -32600
    assert "initialize" in refused.reply["error"]["message"]
    assert screen.check(b'{"jsonrpc":"2.0","id":2,"method":"ping"}').message is not None
    enveloped = ('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"'
                 + ENVELOPE_KEY + '":"2026-07-28"}}}')
    assert screen.check(enveloped).message is not None
    assert screen.check(b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}').message
    assert screen.check(b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}').message is not None


def test_a_response_of_the_client_goes_through() -> None:
    verdict = started().check(b'{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}')
    assert verdict.message == {"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}
    assert verdict.reply is None


def test_a_method_name_with_escape_codes_is_shown_spelled_out() -> None:
    verdict = Screen().check('{"jsonrpc":"2.0","id":1,"method":"\\u001b[2Jwipe"}')
    assert isinstance(verdict.reply, dict)
    message = verdict.reply["error"]["message"]
    assert "\x1b" not in message and "'\\x1b[2Jwipe' before initialize" in message
    long = Screen().check('{"jsonrpc":"2.0","id":1,"method":"' + "m" * 500 + '","params":7}')
    assert isinstance(long.reply, dict) and len(long.reply["error"]["message"]) < 200
