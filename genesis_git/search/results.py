"""What a search is asked for and what it gives back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from genesis_git.kernel.errors import UsageError
from genesis_git.kernel.vocabulary import ARTIFACT_TYPES, SEARCH_MODES
from genesis_git.text.tokens import QueryTerm

MODES = SEARCH_MODES


@dataclass(frozen=True)
class SearchOptions:
    """Options of :func:`genesis_git.search.search`.

    ``types``, ``paths``: OR within one option; every option given must hold
    (AND).  ``component`` matches the system component exactly (ignoring
    case); ``owner`` matches one of the CODEOWNERS owners of the file (with or
    without ``@``); ``max_staleness`` keeps files whose staleness score is at
    most this value (0 = changed just now, 1 = very old).  With ``files`` the
    hits are the matched chunks of the ``k`` best files.
    """

    k: int = 10
    mode: str = "hybrid"
    types: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    component: str | None = None
    owner: str | None = None
    max_staleness: float | None = None
    files: bool = False
    chunks_per_file: int = 5

    def validated(self) -> SearchOptions:
        """The same options with types upper-cased; a clear :class:`UsageError` for bad values."""
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {self.mode!r}", hint="valid modes: " + ", ".join(MODES))
        if self.k < 1:
            raise UsageError(f"-k must be at least 1 (got {self.k})")
        types = tuple(t.strip().upper() for t in self.types)
        unknown = [t for t in types if t not in ARTIFACT_TYPES]
        if unknown:
            raise UsageError(f"unknown --type {unknown[0]!r}",
                             hint="valid types: " + ", ".join(ARTIFACT_TYPES))
        if self.max_staleness is not None and not 0.0 <= self.max_staleness <= 1.0:
            raise UsageError(f"--max-staleness must be between 0 and 1 (got {self.max_staleness:g})")
        if any(not p.strip() for p in self.paths):
            raise UsageError("--path needs a glob, e.g. 'src/**' or '*.md'")
        return SearchOptions(self.k, self.mode, types, tuple(self.paths), self.component,
                             self.owner, self.max_staleness, self.files,
                             max(1, self.chunks_per_file))


@dataclass
class Hit:
    """One chunk of one path, with its score and how the score came about.

    ``breakdown`` always has ``bm25`` (content BM25, or ``None`` when not
    computed), ``vector`` (cosine), ``rrf`` (the fused score in hybrid mode)
    and ``boosts`` (``{"path": …}``: BM25 of the path's tokens, weighted);
    ``lexical_rank`` / ``vector_rank`` (1-based, ``None`` when the hit is not
    in that list) and ``terms`` (each matched term's share of ``bm25``) are
    there too.
    """

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    section: str | None
    symbol: str | None
    artifact_type: str
    component: str | None
    owner: str | None
    text: str
    score: float
    breakdown: dict[str, Any] = field(default_factory=dict)
    matched_terms: list[str] = field(default_factory=list)
    kind: str | None = None
    staleness: float | None = None
    file_score: float | None = None  # the file's own score, when files are ranked as files
    name: str | None = None  # the identifier searched, as written, when the chunk holds it

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def as_dict(self, *, with_path: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path} if with_path else {}
        out.update({
            "start_line": self.start_line,
            "end_line": self.end_line,
            "section": self.section,
            "symbol": self.symbol,
            "kind": self.kind,
            "type": self.artifact_type,
            "component": self.component,
            "owner": self.owner,
            "staleness": self.staleness,
            "score": round(self.score, 6),
            "matched_terms": list(self.matched_terms),
            "breakdown": _rounded(self.breakdown),
            "chunk_id": self.chunk_id,
            "text": self.text,
        })
        return out


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


@dataclass
class SearchResult:
    query: str
    terms: list[QueryTerm]
    hits: list[Hit]
    warnings: list[str] = field(default_factory=list)
    mode: str = "hybrid"
    session_id: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
