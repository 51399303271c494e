"""``g.check``: the files a change probably should have touched and did not.

``genesis check`` and the MCP tool ``check`` call :meth:`Check.run`; the pre-push hook,
below this layer, calls the engine with the options built the same way
(:meth:`~genesis_git.check.CheckOptions.from_settings`).  The engine
(:mod:`genesis_git.check`) reads git; this service adds what the workspace knows: the
settings, the co-change cache in the store, and the story evidence, the impact of the
requirement and notes of the stories the commits name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.check import CheckResult
    from genesis_git.check.change import Change



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
        from genesis_git.check import CheckOptions, check
        from genesis_git.check.change import read_change

        ws = self._ws
        opts = CheckOptions.from_settings(ws.config.settings.check, min_confidence=min_confidence,
                                          top=top, sources=sources)
        repo = ws.repo
        change = change if change is not None else read_change(repo, rev, staged=staged)
        warnings: list[str] = []
        ids: list[str] = []
        found: dict[str, tuple[float, list[str]]] = {}
        if story is not False and "story" in opts.sources and change.files:
            from genesis_git.check.story import story_evidence, story_ids

            ids = list(story) if isinstance(story, list) else story_ids(
                change, ws.config.settings.story.pattern)
            fresh = False
            for sid in ids:
                fresh = story_evidence(ws.caught_up, ws.ledger(), sid, found, warnings,
                                       refresh=not fresh) or fresh
        conn = ws.context.conn if ws.store_path.exists() or ws.is_open else None
        result = check(repo, options=opts, change=change, conn=conn, story=found)
        result.story_ids = ids
        result.warnings = warnings + result.warnings
        return result
