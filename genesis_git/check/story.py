"""The story's evidence: the files that the requirement and notes of the stories a change's
commits name point to, the paths they name and the best files of their impact
(:func:`genesis_git.impact.run` of the story's text, without history)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from genesis_git.check.change import Change

if TYPE_CHECKING:
    from genesis_git.index.session import Context

STORY_FILES = 8  # files the impact of a story's text lends evidence to
STORY_WEIGHT = 0.45  # the weight of the best of them (a path the text names literally: 0.55)
NAMED_WEIGHT = 0.55
_PATHLIKE = re.compile(r"[\w.-]+(?:/[\w.-]+)+|[\w-]+\.\w{1,5}\b")

Found = dict[str, tuple[float, list[str]]]


def story_ids(change: Change, pattern: str) -> list[str]:
    """The story ids the change's commits name, in order, each once."""
    from genesis_git.stories.message import message_story_ids

    ids: list[str] = []
    for _, message in change.commits:
        for sid in message_story_ids(message, pattern):
            if sid not in ids:
                ids.append(sid)
    return ids


def story_evidence(context: Callable[[], Context], ledger: sqlite3.Connection, story_id: str,
                   found: Found, warnings: list[str], *, refresh: bool = True) -> bool:
    """Add to ``found`` the files the story's requirement and notes point to; ``context``
    gives the repository's context for the impact of its text, asked only for a story
    the ledger holds (a clone without a store gets no store from a check); ``refresh``
    brings the session up to date first (once is enough for several stories).  True when
    the session was read (and refreshed, with ``refresh``)."""
    from genesis_git.impact import ImpactOptions, run
    from genesis_git.kernel.errors import GenesisError
    from genesis_git.stories.context import build_context, story_query

    try:
        sctx: dict[str, Any] = build_context(ledger, story_id)
    except GenesisError:
        warnings.append(f"story {story_id} is not in the ledger: no story evidence")
        return False
    artifacts = [a for items in sctx["artifacts"].values() for a in items]
    named: set[str] = set()  # the requirement document itself is a source, not a file to edit
    for a in artifacts:
        named.update(m.group(0).strip("./") for m in _PATHLIKE.finditer(a.get("summary") or ""))
    for path in sorted(named):
        _lend(found, path, NAMED_WEIGHT, f"{story_id}'s requirement or notes name it")
    query = story_query(sctx)
    if not query.strip():
        return False
    try:
        report = run(context(), query, ImpactOptions(k=STORY_FILES, history=False, stories=False,
                                               rag=False), refresh=refresh)
    except GenesisError as exc:
        warnings.append(f"story {story_id}: its impact could not be read ({exc})")
        return False
    best = max((f.score for f in report.files), default=0.0)
    for f in report.files:
        if best > 0:
            _lend(found, f.path, STORY_WEIGHT * f.score / best,
                  f"in the impact of {story_id}'s requirement")
    return True


def _lend(found: Found, path: str, weight: float, reason: str) -> None:
    old, reasons = found.get(path, (0.0, []))
    found[path] = (max(old, weight), reasons + [reason])
