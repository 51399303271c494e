"""File-level results: a file's score is its best chunk's, and its matched chunks are listed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from genesis_git.search.results import Hit


@dataclass
class FileHit:
    path: str
    score: float
    chunks: list[Hit] = field(default_factory=list)

    @property
    def artifact_type(self) -> str:
        return self.chunks[0].artifact_type if self.chunks else "OTHER"

    def as_dict(self) -> dict[str, Any]:
        first = self.chunks[0] if self.chunks else None
        return {
            "path": self.path,
            "score": round(self.score, 6),
            "type": first.artifact_type if first else None,
            "component": first.component if first else None,
            "owner": first.owner if first else None,
            "chunks": [c.as_dict(with_path=False) for c in self.chunks],
        }


def group_by_file(hits: Iterable[Hit]) -> list[FileHit]:
    """Group hits by path, the files in the order of their first hit and each file's chunks
    in the order given: the hits' order is the ranking (by score, or for a query that is one
    identifier its definitions first, :mod:`genesis_git.search.exact`, whose scores do not
    follow that order).  A file's score is its best chunk's, or its hits' ``file_score`` when
    set (``--files`` ranks files with impact's evidence)."""
    groups: dict[str, FileHit] = {}
    for hit in hits:
        own = hit.file_score if hit.file_score is not None else hit.score
        group = groups.get(hit.path)
        if group is None:
            groups[hit.path] = FileHit(hit.path, own, [hit])
        else:
            group.chunks.append(hit)
            group.score = max(group.score, own)
    return list(groups.values())
