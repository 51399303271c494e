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
    """Group hits by path: best chunk's score first, then path; chunks in score order.

    A hit's ``file_score``, when set (``--files`` ranks files with impact's evidence),
    is its file's score instead of the best chunk's."""
    groups: dict[str, FileHit] = {}
    for hit in hits:
        own = hit.file_score if hit.file_score is not None else hit.score
        group = groups.get(hit.path)
        if group is None:
            groups[hit.path] = FileHit(hit.path, own, [hit])
        else:
            group.chunks.append(hit)
            group.score = max(group.score, own)
    for group in groups.values():
        group.chunks.sort(key=lambda h: (-h.score, h.start_line, h.chunk_id))
    return sorted(groups.values(), key=lambda g: (-g.score, g.path))
