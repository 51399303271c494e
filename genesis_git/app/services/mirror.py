"""``g.mirror``: the organisation's PostgreSQL mirror of the story ledger.  Only git and the
configuration are read: the local store is never opened."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace


class Mirror:
    """``genesis ledger mirror``, ``genesis story org-list / org-context`` and the mirror step
    of ``genesis sync``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def push(self, url: str | None = None) -> dict[str, Any]:
        """Write this repository's ledger records into the PostgreSQL mirror."""
        from genesis_git.mirror.service import mirror

        return mirror(self._ws.repo, self._ws.config, url)

    def after_sync(self) -> tuple[dict[str, Any] | None, GenesisError | None]:
        """What ``genesis sync`` does after syncing: mirror when a mirror is configured.

        ``(result, None)``; ``(None, None)`` without a mirror; ``({"error": …}, error)``
        when the mirror failed, so that the sync, which did succeed, is still reported.
        """
        if not self._ws.config.settings.ledger.mirror.strip():
            return None, None
        try:
            return self.push(), None
        except GenesisError as exc:
            return {"error": str(exc), "exit_code": int(exc.exit_code)}, exc

    def stories(self, *, url: str | None = None, status: str | None = None,
                project: str | None = None) -> dict[str, Any]:
        """The stories of every repository in the mirror, each with its projects."""
        from genesis_git.mirror.service import config_here, org_stories

        return org_stories(config_here(self._ws.path), url, status=status, project=project)

    def story(self, story_id: str, *, url: str | None = None) -> dict[str, Any]:
        """A story's context from every repository in the mirror, each item with its project."""
        from genesis_git.mirror.service import config_here, org_story

        return org_story(config_here(self._ws.path), story_id, url)
