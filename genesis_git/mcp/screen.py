"""What ``genesis mcp`` does with each line a client sends, before the SDK sees it.

The SDK drops a line it cannot read as a JSON-RPC message, and the client waits for ever.
Here every request gets an answer (JSON-RPC 2.0, section 5.1):

* a line that is not JSON: ``-32700`` (parse error), id null;
* JSON that is not a request: ``-32600`` (invalid request), with the request's id when it
  has a usable one (a string or an integer), else id null: ``"jsonrpc"`` other than
  ``"2.0"``, an id that is an object, an array, a float or a boolean, a method that is not
  a string;
* ``params`` that is not an object: ``-32602`` (invalid params), with the id;
* ``tools/call`` without a tool's name, or with arguments that are not an object: ``-32602``;
* a request other than ``initialize`` or ``ping`` before ``initialize``: ``-32600``, saying
  to send ``initialize`` first (a request in the per-request envelope of the newer protocol
  versions opens its own connection and goes through);
* a batch (a JSON array): protocol 2025-06-18 has no batches and the SDK reads one message
  a line, so each request of the batch gets ``-32600`` with its own id (a client waiting
  for an id stops waiting), in one JSON array as JSON-RPC answers a batch; an empty array
  is one ``-32600``, id null.

A notification (no id) never gets an answer, as JSON-RPC says, even a malformed one; an
empty line is ignored.  Pure: no I/O, so that each rule is tested alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

#: the reserved ``_meta`` key of the per-request envelope (protocol 2026-07-28 and later)
ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"
BEFORE_INITIALIZE = frozenset({"initialize", "ping"})


@dataclass
class Verdict:
    """What to do with one line: hand ``message`` to the SDK, and/or write ``reply``."""

    message: dict[str, Any] | None = None
    reply: dict[str, Any] | list[dict[str, Any]] | None = None


def error(code: int, message: str, request_id: str | int | None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")


def shown(name: str) -> str:
    """A client's method name as a message shows it: as is when it is short and printable,
    else quoted with its escape codes spelled out."""
    if name.isprintable() and len(name) <= 80:
        return name
    text = repr(name)
    return text if len(text) <= 80 else text[:77] + "..."


def usable_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class Screen:
    """The rules above, with the one piece of state they need: has ``initialize`` come?"""

    def __init__(self) -> None:
        self.initialized = False

    def check(self, line: bytes | str) -> Verdict:
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        if not text.strip():
            return Verdict()
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            return Verdict(reply=error(PARSE_ERROR, f"parse error: {exc}", None))
        if isinstance(parsed, list):
            return Verdict(reply=self._batch(parsed))
        return self._one(parsed)

    @staticmethod
    def _batch(items: list[Any]) -> dict[str, Any] | list[dict[str, Any]] | None:
        if not items:
            return error(INVALID_REQUEST, "invalid request: an empty batch", None)
        why = ("invalid request: batches are not supported; send each request on a line "
               "of its own")
        replies = []
        for item in items:
            if isinstance(item, dict) and "id" not in item and isinstance(item.get("method"), str):
                continue  # a notification: no answer
            request_id = item.get("id") if isinstance(item, dict) else None
            replies.append(error(INVALID_REQUEST, why,
                                 request_id if usable_id(request_id) else None))
        return replies or None

    def _one(self, message: object) -> Verdict:
        if not isinstance(message, dict):
            return Verdict(reply=error(INVALID_REQUEST, "invalid request: a message must be "
                                       f"a JSON object (got {_kind(message)})", None))
        has_id = "id" in message
        request_id = message.get("id")
        method = message.get("method")
        is_response = "method" not in message and ("result" in message or "error" in message)
        if not has_id and isinstance(method, str):
            return self._notification(message)
        if is_response:  # the client's answer to the server: never answered
            ok = usable_id(request_id) and message.get("jsonrpc") == "2.0"
            return Verdict(message=message) if ok else Verdict()
        if has_id and not usable_id(request_id):
            return Verdict(reply=error(INVALID_REQUEST, "invalid request: id must be a string "
                                       f"or an integer (got {_kind(request_id)})", None))
        reply_id = request_id if has_id else None
        if message.get("jsonrpc") != "2.0":
            return Verdict(reply=error(INVALID_REQUEST, 'invalid request: "jsonrpc" must be '
                                       f'"2.0" (got {json.dumps(message.get("jsonrpc"))})',
                                       reply_id))
        if not isinstance(method, str):
            what = "no method" if method is None else f"a method that is {_kind(method)}"
            return Verdict(reply=error(INVALID_REQUEST, f"invalid request: {what}", reply_id))
        params = message.get("params")
        if "params" in message and not isinstance(params, dict):
            return Verdict(reply=error(INVALID_PARAMS, f"invalid params: params of {shown(method)} "
                                       f"must be an object (got {_kind(params)})", reply_id))
        if method == "tools/call" and not isinstance((params or {}).get("name"), str):
            return Verdict(reply=error(INVALID_PARAMS, "invalid params: tools/call needs "
                                       "params.name (the tool) and params.arguments", reply_id))
        arguments = (params or {}).get("arguments")
        if method == "tools/call" and not isinstance(arguments, (dict, type(None))):
            return Verdict(reply=error(INVALID_PARAMS, "invalid params: params.arguments of "
                                       f"tools/call must be an object (got {_kind(arguments)})",
                                       reply_id))
        if method == "initialize":
            self.initialized = True
        elif method not in BEFORE_INITIALIZE and not self.initialized and not _enveloped(params):
            return Verdict(reply=error(INVALID_REQUEST, f"{shown(method)} before initialize: send "
                                       "initialize (then notifications/initialized) first",
                                       reply_id))
        return Verdict(message=message)

    @staticmethod
    def _notification(message: dict[str, Any]) -> Verdict:
        if message.get("jsonrpc") != "2.0" or not isinstance(message.get("params", {}), dict):
            return Verdict()  # a broken notification: nobody waits for an answer
        return Verdict(message=message)


def _enveloped(params: dict[str, Any] | None) -> bool:
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and ENVELOPE_KEY in meta
