"""The prompt for an LLM engine, and the parsing of its answer.

The prompt holds the requirement, the retrieved chunks with their paths and
line ranges, and the files the deterministic cross-reference ranked first.
The answer must be JSON: ``{"impacts": [{"target", "kind", "path", "lines",
"type", "detail", "evidence"}]}``.  :func:`parse_answer` accepts it inside a
Markdown code fence or after some prose, and normalises ``type`` (修改 →
modify, 新增 → add, 删除 → delete) and ``kind``; anything else raises
:class:`~genesis_git.providers.llm.EngineError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from genesis_git.providers.llm import EngineError

MAX_CHUNK_CHARS = 1800

INSTRUCTIONS = """\
List every module, file, symbol and field this requirement affects.
Answer with one JSON object and nothing else, in this shape:
{"impacts": [{"target": "<symbol, table.field or path>",
              "kind": "file" | "symbol" | "field",
              "path": "<repository path>",
              "lines": [<start>, <end>],
              "type": "modify" | "add" | "delete",
              "detail": "<what changes and why, in the requirement's language>",
              "evidence": ["<path>:<line>: <the line that shows it>"]}]}
Use only paths that appear above. Most affected first."""


@dataclass(frozen=True)
class PromptChunk:
    path: str
    start_line: int
    end_line: int
    text: str
    artifact_type: str = ""


def _fence_lang(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return {"py": "python", "md": "markdown", "js": "javascript", "ts": "typescript",
            "yml": "yaml", "rs": "rust", "rb": "ruby", "kt": "kotlin"}.get(ext, ext)


def build_prompt(requirement: str, chunks: Sequence[PromptChunk],
                 candidates: Sequence[tuple[str, float]] = ()) -> str:
    """The whole prompt: requirement, excerpts (path:start-end), candidate files, instructions."""
    out = ["# Requirement", "", requirement.strip(), ""]
    if chunks:
        out += ["# Repository excerpts (most relevant first)", ""]
        for c in chunks:
            kind = f" ({c.artifact_type})" if c.artifact_type else ""
            text = c.text if len(c.text) <= MAX_CHUNK_CHARS else c.text[:MAX_CHUNK_CHARS] + "\n…"
            fence = "~~~~" if "```" in text else "```"
            out += [f"## {c.path}:{c.start_line}-{c.end_line}{kind}",
                    f"{fence}{_fence_lang(c.path)}", text, fence, ""]
    if candidates:
        out += ["# Files ranked by the cross-reference (path, score)", ""]
        out += [f"- {p} ({s:.3f})" for p, s in candidates]
        out.append("")
    out += ["# Task", "", INSTRUCTIONS, ""]
    return "\n".join(out)


_TYPES = {
    "modify": "modify", "modified": "modify", "change": "modify", "update": "modify",
    "修改": "modify", "变更": "modify", "更新": "modify",
    "add": "add", "added": "add", "new": "add", "create": "add",
    "新增": "add", "增加": "add", "添加": "add",
    "delete": "delete", "deleted": "delete", "remove": "delete", "removed": "delete",
    "删除": "delete", "移除": "delete",
}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def _json_candidates(text: str) -> list[str]:
    out = [m.group(1) for m in _FENCE.finditer(text)]
    spans = []
    for open_, close in ("{}", "[]"):
        start, end = text.find(open_), text.rfind(close)
        if start != -1 and end > start:
            spans.append((start, text[start:end + 1]))
    return out + [s for _, s in sorted(spans)]  # the outermost structure first


def _lines(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value[:2]):
        start = int(value[0])
        end = int(value[1]) if len(value) > 1 else start
        return [start, max(start, end)]
    if isinstance(value, int) and not isinstance(value, bool):
        return [value, value]
    if isinstance(value, str):
        m = re.match(r"^\s*(\d+)(?:\s*[-–:]\s*(\d+))?\s*$", value)
        if m:
            start = int(m.group(1))
            return [start, max(start, int(m.group(2) or start))]
    return None


def _kind(value: Any, target: str, path: str) -> str:
    kind = str(value or "").strip().lower()
    if kind in ("file", "symbol", "field"):
        return kind
    if kind in ("column", "字段", "列"):
        return "field"
    if kind in ("module", "文件"):
        return "file"
    if target == path or "/" in target:
        return "file"
    return "symbol"


def parse_answer(text: str) -> list[dict[str, Any]]:
    """The ``impacts`` of an engine's answer, normalised; :class:`EngineError` when there are none."""
    payload: Any = None
    for cand in _json_candidates(text):
        try:
            payload = json.loads(cand)
            break
        except ValueError:
            continue
    if payload is None:
        raise EngineError("the engine's answer is not valid JSON")
    items = payload.get("impacts") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise EngineError("the engine's answer has no \"impacts\" list")
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        target = str(item.get("target") or item.get("path") or "").strip()
        if not target:
            continue
        path = str(item.get("path") or "").strip()
        evidence = item.get("evidence") or []
        if isinstance(evidence, str):
            evidence = [evidence]
        out.append({
            "target": target,
            "kind": _kind(item.get("kind"), target, path),
            "path": path,
            "lines": _lines(item.get("lines")),
            "type": _TYPES.get(str(item.get("type") or "").strip().lower(), "modify"),
            "detail": str(item.get("detail") or "").strip(),
            "evidence": [str(e) for e in evidence if str(e).strip()][:5]
            if isinstance(evidence, list) else [],
        })
    if not out:
        raise EngineError("the engine's answer lists no impacts")
    return out
