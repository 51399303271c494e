"""``g.cache``: the shared cache of chunks by blob SHA."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace


class Cache:
    """``genesis cache stats / gc``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def stats(self) -> dict[str, Any]:
        from genesis_git.index.cache import stats

        ctx = self._ws.caught_up()
        return stats(ctx.conn, ctx.repo)

    def gc(self, *, dry_run: bool = False) -> dict[str, Any]:
        from genesis_git.index.cache import gc

        ctx = self._ws.caught_up()
        return gc(ctx.conn, ctx.repo, ctx.config, dry_run)
