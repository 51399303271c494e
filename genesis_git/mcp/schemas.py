"""The ``outputSchema`` of every tool: the shape of its structured content.

Each schema names the keys an answer always has, with their types, and leaves
the inside of the items open (``additionalProperties``), so that a field added
later does not break a client that validates; the commands' ``--json``
references (docs/reference/json.md) describe every field.  An answer that was
cut also has ``truncated`` and ``next_cursor`` (:mod:`genesis_git.mcp.answer`).
"""

from __future__ import annotations

from typing import Any

OBJ: dict[str, Any] = {"type": "object", "additionalProperties": True}
LIST: dict[str, Any] = {"type": "array", "items": OBJ}
STR: dict[str, Any] = {"type": "string"}
NULL_STR: dict[str, Any] = {"type": ["string", "null"]}
INT: dict[str, Any] = {"type": "integer"}
PAGING: dict[str, Any] = {
    "truncated": {"type": "object", "description": "present when the answer was cut: the list "
                  "cut, its offset, items returned and total, strings shortened",
                  "additionalProperties": True},
    "next_cursor": {"type": ["string", "null"], "description": "pass it as cursor, with the "
                    "same arguments, for the rest; null when nothing is left"},
    "history": {"type": "object", "description": "story tools while the history's story "
                "commits are still being read (status reading or failed)",
                "additionalProperties": True},
}


def _schema(required: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "object", "description": description,
            "properties": {**required, **PAGING}, "required": sorted(required),
            "additionalProperties": True}


SCHEMAS: dict[str, dict[str, Any]] = {
    "search": {"type": "object", "description": "ranked: the JSON of `genesis search --json` "
               "(results); fixed/regex: that of `genesis search -F/-E --json` (matches, files)",
               "properties": {"query": STR, "mode": STR, "session": STR, "results": LIST,
                              "matches": LIST, "files": LIST, **PAGING},
               "required": ["mode", "query", "session"], "additionalProperties": True},
    "impact": _schema({"requirement": STR, "mode": STR, "warnings": LIST | {"items": STR},
                       "impacts": LIST, "files": LIST}, "`genesis impact --json`"),
    "symbols": {"type": "object", "description": "`genesis symbols --json`: definitions "
                "(name, kind, path, line, end_line, location; via when inherited), references with refs",
                "properties": {"name": STR, "path": STR, "session": STR, "definitions": LIST,
                               "references": LIST, **PAGING},
                "required": ["definitions", "session"], "additionalProperties": True},
    "story_context": _schema({"story": OBJ}, "`genesis story context --json`"),
    "story_list": _schema({"stories": LIST}, "`genesis story list --json`"),
    "session_status": _schema({"active": {"type": ["object", "null"]}},
                              "`genesis session status --json`"),
    "session_start": _schema({"session": STR}, "`genesis session start --json`"),
    "session_note": _schema({"role": STR}, "`genesis session note --json`"),
    "design_search": _schema({"query": STR, "results": LIST, "available": {"type": "boolean"}},
                             "`genesis design search --json`"),
    "design_brief": _schema({"cards": {"type": "array"}}, "`genesis design brief --json`"),
    "check": _schema({"schema": STR, "change": OBJ, "missing": LIST,
                      "warnings": LIST | {"items": STR}}, "`genesis check --json`"),
}


def declare_output_schemas(server: Any) -> None:
    """Publish each tool's schema (a hand-made schema is advertised; the client validates)."""
    for tool in server._tool_manager.list_tools():
        tool.fn_metadata.output_schema = SCHEMAS[tool.name]
