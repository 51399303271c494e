"""``g.check``: the files a change probably should have touched and did not.

Every door (``genesis check``, the pre-push hook, the MCP tool ``check``) calls
:meth:`Check.run`.  The engine (:mod:`genesis_git.check`) reads git; this service adds what
the workspace knows: the settings, the co-change cache in the store, and the story
evidence, the impact of the requirement and notes of the stories the commits name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.check import CheckResult
    from genesis_git.check.change import Change

STORY_FILES = 8  # files the impact of a story's text lends evidence to
STORY_WEIGHT = 0.45  # the weight of the best of them (a path the text names literally: 0.55)
_PATHLIKE = re.compile(r"[\w.-]+(?:/[\w.-]+)+|[\w-]+\.\w{1,5}\b")


class Check:
    """``genesis check``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def run(self, rev: str | None = None, *, staged: bool = False,
            min_confidence: float | None = None, top: int | None = None,
            sources: list[str] | None = None, story: bool | list[str] = True,
            change: Change | None = None) -> CheckResult:
        """Check the change named by ``rev`` (a commit, ``A..B``, ``A...B``), the staged changes
        (``staged``) or the working tree's changes (neither).  ``story`` is a list of story ids,
        ``True`` for those the change's commits name, ``False`` for none."""
        from genesis_git.check import SOURCES, CheckOptions, check
        from genesis_git.check.change import read_change
        from genesis_git.kernel.errors import UsageError

        ws = self._ws
        settings = ws.config.settings.check
        chosen = tuple(sources) if sources is not None else settings.sources
        unknown = [s for s in chosen if s not in SOURCES]
        if unknown:
            raise UsageError(f"unknown source {unknown[0]!r}; the sources are "
                             + ", ".join(SOURCES))
        opts = CheckOptions(
            min_confidence=settings.min_confidence if min_confidence is None else min_confidence,
            top=settings.top if top is None else top, sources=chosen)
        if not 0 <= opts.min_confidence <= 1:
            raise UsageError(f"--min-confidence must be between 0 and 1 "
                             f"(got {opts.min_confidence:g})")
        if opts.top < 1:
            raise UsageError(f"--top must be at least 1 (got {opts.top})")
        repo = ws.repo
        change = change if change is not None else read_change(repo, rev, staged=staged)
        warnings: list[str] = []
        ids: list[str] = []
        found: dict[str, tuple[float, list[str]]] = {}
        if story is not False and "story" in chosen and change.files:
            ids = list(story) if isinstance(story, list) else self._story_ids(change)
            for sid in ids:
                self._story_evidence(sid, found, warnings)
        conn = ws.context.conn if ws.store_path.exists() or ws.is_open else None
        result = check(repo, options=opts, change=change, conn=conn, story=found)
        result.story_ids = ids
        result.warnings = warnings + result.warnings
        return result

    def _story_ids(self, change: Change) -> list[str]:
        from genesis_git.stories.message import message_story_ids

        pattern = self._ws.config.settings.story.pattern
        ids: list[str] = []
        for _, message in change.commits:
            for sid in message_story_ids(message, pattern):
                if sid not in ids:
                    ids.append(sid)
        return ids

    def _story_evidence(self, story_id: str, found: dict[str, tuple[float, list[str]]],
                        warnings: list[str]) -> None:
        """The files the story's requirement and notes point to: the paths they name, and the
        best files of their impact."""
        from genesis_git.kernel.errors import GenesisError
        from genesis_git.stories.context import build_context, story_query

        ws = self._ws
        try:
            ctx: dict[str, Any] = build_context(ws.ledger(), story_id)
        except GenesisError:
            warnings.append(f"story {story_id} is not in the ledger: no story evidence")
            return
        texts = [a.get("summary") or "" for items in ctx["artifacts"].values() for a in items]
        named = {a["path"] for items in ctx["artifacts"].values() for a in items if a.get("path")}
        for text in texts:
            named.update(m.group(0).strip("./") for m in _PATHLIKE.finditer(text))
        for path in sorted(named):
            _lend(found, path, 0.55, f"{story_id}'s requirement or notes name it")
        query = story_query(ctx)
        if not query.strip():
            return
        try:
            from genesis_git.app.services.impact import Impact

            impact = Impact(ws)
            report = impact.run(query, impact.options(k=STORY_FILES, history=False,
                                                      stories=False), use_rag=False)
        except GenesisError as exc:
            warnings.append(f"story {story_id}: its impact could not be read ({exc})")
            return
        files = report.result.get("files", [])
        best = max((f["score"] for f in files), default=0.0)
        for f in files:
            if best > 0:
                _lend(found, f["path"], STORY_WEIGHT * f["score"] / best,
                      f"in the impact of {story_id}'s requirement")


def _lend(found: dict[str, tuple[float, list[str]]], path: str, weight: float,
          reason: str) -> None:
    old, reasons = found.get(path, (0.0, []))
    found[path] = (max(old, weight), reasons + [reason])
