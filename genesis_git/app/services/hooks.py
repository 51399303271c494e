"""``g.hooks``: the git hooks genesis installs (small shell shims; a hook already there is
kept as ``<hook>.legacy`` and chained)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from genesis_git.app.workspace import Workspace


class Hooks:
    """``genesis hooks install / uninstall / status`` (the store is not opened)."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def install(self, *, follow_hooks_path: bool = False) -> dict[str, Any]:
        """Write the hook shims (a hook already there is kept as ``<hook>.legacy``)."""
        from genesis_git.hooks.install import install

        return install(self._ws.repo, follow_hooks_path=follow_hooks_path)

    def install_template(self, template_dir: Path) -> dict[str, Any]:
        """Write the shims into ``template_dir/hooks`` for the repositories to come (git's
        ``init.templateDir``); no repository is needed."""
        from genesis_git.hooks.install import install_template

        return install_template(template_dir)

    def uninstall(self) -> dict[str, Any]:
        from genesis_git.hooks.install import uninstall

        return uninstall(self._ws.repo)

    def status(self) -> dict[str, Any]:
        from genesis_git.hooks.install import status

        return status(self._ws.repo)
