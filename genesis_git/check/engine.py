"""``genesis check``: the files a change probably should have touched and did not.

    from genesis_git.check import CheckOptions, check

    result = check(repo, "origin/main...HEAD", CheckOptions(), conn=conn)
    result.shown(), result.to_json()

The evidence of each file comes from five sources (co-change, references, tests, the story,
docs; see :mod:`genesis_git.check.cochange` and :mod:`genesis_git.check.sources`), each a
weight between 0 and 1.  An item's **confidence** joins them as independent witnesses,
``1 − Π(1 − wᵢ)``; its **score**, which orders the list, adds the co-change ranking
(relative to the best co-change of this change) to that confidence.  Only items whose
confidence reaches ``min_confidence`` are shown by default: on a complete change the list
is usually empty.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from genesis_git.check import cochange as cochange_mod
from genesis_git.check import sources
from genesis_git.check.change import Change, read_change
from genesis_git.git.repo import Repo
from genesis_git.impact.history import History, load_history
from genesis_git.impact.kinds import file_flags

if TYPE_CHECKING:
    from genesis_git.config.schema import CheckSettings

SCHEMA = "genesis.check/1"
SOURCES = ("co-change", "references", "tests", "story", "docs")
COCHANGE_RANK = 2.5  # how much the co-change ranking adds to the score (chosen on bench/check_eval.py)
MIN_TOGETHER = 2  # fewer past commits with one of the change's files is not yet a habit


@dataclass
class CheckOptions:
    min_confidence: float = 0.5
    top: int = 10  # items kept in the result (shown or not)
    sources: tuple[str, ...] = SOURCES

    @classmethod
    def from_settings(cls, settings: CheckSettings, *, min_confidence: float | None = None,
                      top: int | None = None, sources: Sequence[str] | None = None
                      ) -> CheckOptions:
        """The options of one door (``genesis check``, the MCP tool, the pre-push hook): each
        value it was given, else the ``[check]`` setting; a value out of range is a usage
        error that names it."""
        from genesis_git.kernel.errors import UsageError

        chosen = tuple(sources) if sources is not None else tuple(settings.sources)
        unknown = [s for s in chosen if s not in SOURCES]
        if unknown:
            raise UsageError(f"unknown source {unknown[0]!r}; the sources are "
                             + ", ".join(SOURCES))
        opts = cls(
            min_confidence=settings.min_confidence if min_confidence is None else min_confidence,
            top=settings.top if top is None else top, sources=chosen)
        if not 0 <= opts.min_confidence <= 1:
            raise UsageError(f"--min-confidence must be between 0 and 1 "
                             f"(got {opts.min_confidence:g})")
        if opts.top < 1:
            raise UsageError(f"--top must be at least 1 (got {opts.top})")
        return opts


@dataclass
class Reason:
    source: str
    weight: float
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "weight": round(self.weight, 3), "detail": self.detail}


@dataclass
class Missing:
    path: str
    score: float
    confidence: float
    reasons: list[Reason] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "score": round(self.score, 4),
                "confidence": round(self.confidence, 3),
                "reasons": [r.to_json() for r in self.reasons]}


@dataclass
class CheckResult:
    change: Change
    missing: list[Missing]  # every candidate kept, best first
    min_confidence: float
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    story_ids: list[str] = field(default_factory=list)

    def shown(self) -> list[Missing]:
        """The items that clear the confidence threshold."""
        return [m for m in self.missing if m.confidence >= self.min_confidence]

    def fails(self, fail_on: float) -> bool:
        """Whether a file reached ``fail_on`` (``[check] fail_on``, ``--fail-on``; 0: never)."""
        return fail_on > 0 and any(m.confidence >= fail_on for m in self.missing)

    def to_json(self, *, everything: bool = False) -> dict[str, Any]:
        items = self.missing if everything else self.shown()
        return {"schema": SCHEMA,
                "change": {**self.change.to_json(), "stories": self.story_ids},
                "min_confidence": self.min_confidence,
                "missing": [m.to_json() for m in items],
                "below_threshold": len(self.missing) - len(self.shown()),
                "warnings": list(self.warnings)}


StoryFound = dict[str, tuple[float, list[str]]]


def tree_paths(repo: Repo, change: Change) -> set[str]:
    """The files of the change's "after" side: the tip's tree, else the index."""
    if change.tip:
        raw = repo.git("ls-tree", "-r", "-z", "--name-only", change.tip)
    else:
        raw = repo.git("ls-files", "-z")
    return {p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p}


def check(repo: Repo, rev: str | None = None, options: CheckOptions | None = None, *,
          staged: bool = False, conn: sqlite3.Connection | None = None,
          change: Change | None = None, story: StoryFound | None = None) -> CheckResult:
    """What the change named by ``rev`` (or ``staged``) probably forgot."""
    started = time.perf_counter()
    opts = options or CheckOptions()
    change = change if change is not None else read_change(repo, rev, staged=staged)
    result = CheckResult(change, [], opts.min_confidence)
    if not change.files:
        result.seconds = time.perf_counter() - started
        return result
    tree = tree_paths(repo, change)
    found: dict[str, list[Reason]] = {}
    ranks: dict[str, float] = {}

    def add(path: str, source: str, weight: float, detail: str) -> None:
        if path in change.files or path not in tree or weight <= 0:
            return
        found.setdefault(path, []).append(Reason(source, weight, detail))

    hist: History | None = None
    pool = ThreadPoolExecutor(1)
    try:  # the other sources read the diff while git log reads the history
        others = pool.submit(_sources, repo, change, opts, tree, add)
        if "co-change" in opts.sources and change.head:
            hist = load_history(conn, repo, change.head, messages=False)
        others.result()
    finally:
        pool.shutdown(wait=True)
    if hist is not None:
        pairs = cochange_mod.cochange(hist, change.files, tree)
        best = max((c.score for c in pairs.values()), default=0.0)
        for path, c in pairs.items():
            if c.pair_count < MIN_TOGETHER:
                weight = 0.0
            elif "changelog" in file_flags(path):
                weight = c.confidence * 0.5  # a changelog pairs with everything
            else:
                weight = c.confidence
            ranks[path] = c.score / best if best else 0.0
            add(path, "co-change", weight if weight > 0 else 1e-6,
                f"changed with {c.seed} in {c.pair_count} of its {c.seed_count} commits"
                + (f" (last {c.shas[0][:10]})" if c.shas else ""))
    if story and "story" in opts.sources:
        for path, (weight, details) in story.items():
            add(path, "story", weight, "; ".join(details))
    ranked: list[Missing] = []
    for path, reasons in found.items():
        miss = 1.0
        for r in reasons:
            miss *= 1.0 - min(r.weight, 0.95)
        conf = 1.0 - miss
        reasons.sort(key=lambda r: (-r.weight, r.source))
        ranked.append(Missing(path, conf + COCHANGE_RANK * ranks.get(path, 0.0), conf, reasons))
    ranked.sort(key=lambda m: (-m.score, m.path))
    result.missing = ranked[:opts.top]
    result.seconds = time.perf_counter() - started
    return result


Add = Callable[[str, str, float, str], None]


def _sources(repo: Repo, change: Change, opts: CheckOptions, tree: set[str], add: Add) -> None:
    """The evidence of references, tests and docs."""
    picked = {}
    if {"references", "docs"} & set(opts.sources):  # both read the edited definitions
        defs = sources.definitions(repo, change)
        hits = sources.grep_names(repo, change, defs, tree)
        picked["references"], picked["docs"] = sources.references(repo, change, defs, hits, tree)
    if "tests" in opts.sources:
        picked["tests"] = sources.tests(change, tree)
    for source, items in picked.items():
        if source not in opts.sources:
            continue
        for path, (weight, details) in items.items():
            add(path, source, weight, "; ".join(details))
