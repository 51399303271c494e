"""The last station of impact: one typed result, the same for every door.

:meth:`ImpactResult.to_json` is what ``genesis impact --json`` prints and the
MCP server's ``impact`` tool returns::

    {"schema": 1, "requirement": str, "mode": "cross-reference" | "rag",
     "warnings": [str], "weak_evidence": bool,
     "impacts": [{"target", "kind": "file"|"symbol"|"field", "path", "lines": [start, end],
                  "type": "modify"|"add"|"delete", "detail", "evidence": [str],
                  "score", "reasons": {signal: contribution}, "confidence": 0..1}],
     "files": [{"path", "score", "reasons", "confidence": 0..1}]}

:attr:`ImpactResult.result` is the same without ``schema`` and ``warnings``
(seed 000's ``run_impact`` dict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA = 1


@dataclass
class Impact:
    """One thing the requirement affects: a file, a symbol or a table's field."""

    target: str
    kind: str  # file | symbol | field
    path: str
    lines: list[int]  # [start, end], or empty
    type: str  # modify | add | delete
    detail: str
    evidence: list[str]
    score: float
    reasons: dict[str, float]
    confidence: float = 0.0  # that of its file (:mod:`genesis_git.impact.confidence`)

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "kind": self.kind, "path": self.path,
                "lines": self.lines, "type": self.type, "detail": self.detail,
                "evidence": self.evidence, "score": self.score, "reasons": self.reasons,
                "confidence": self.confidence}


@dataclass
class RankedFile:
    path: str
    score: float
    reasons: dict[str, float]  # signal -> contribution; they add up to the score
    confidence: float = 0.0  # 0..1 (:mod:`genesis_git.impact.confidence`)

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "score": self.score, "reasons": self.reasons,
                "confidence": self.confidence}


@dataclass
class ImpactResult:
    """The impact of a requirement: ranked files, impacts with evidence, and what to tell."""

    requirement: str
    mode: str  # cross-reference | rag
    impacts: list[Impact] = field(default_factory=list)
    files: list[RankedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)  # close terms when nothing matched
    prompt: str | None = None  # the prompt for an engine, when one was built
    matched_terms: list[str] = field(default_factory=list)
    weak_evidence: bool = False  # the best files' evidence is weak (a warning says so)
    schema: int = SCHEMA

    @property
    def matched(self) -> bool:
        return bool(self.files or self.impacts)

    @property
    def result(self) -> dict[str, Any]:
        """``{"requirement", "mode", "impacts", "files"}``."""
        return {"requirement": self.requirement, "mode": self.mode,
                "impacts": [i.as_dict() for i in self.impacts],
                "files": [f.as_dict() for f in self.files]}

    def to_json(self) -> dict[str, Any]:
        """The result as ``--json`` prints it: :attr:`result` with ``schema`` and ``warnings``."""
        return {"schema": self.schema, "requirement": self.requirement, "mode": self.mode,
                "warnings": list(self.warnings), "weak_evidence": self.weak_evidence,
                "impacts": [i.as_dict() for i in self.impacts],
                "files": [f.as_dict() for f in self.files]}
