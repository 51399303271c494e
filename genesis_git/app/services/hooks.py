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
        """Each hook's state, and ``ledger``: where the pre-push hook and ``genesis sync``
        push the story ledger."""
        from genesis_git.hooks.install import status

        return {**status(self._ws.repo), "ledger": self.ledger_sharing()}

    def ledger_sharing(self) -> dict[str, Any]:
        """``share`` ([ledger] share), ``remotes`` (those that get the ledger), ``missing``
        (named but not a remote of this clone), ``others`` (remotes that never get it) and
        ``error`` (a configuration that cannot be read, else ``None``)."""
        from genesis_git.kernel.errors import GenesisError
        from genesis_git.stories.ledger.sync import ledger_remotes, remotes

        names = remotes(self._ws.repo.root)
        try:
            config = self._ws.config
        except GenesisError as exc:
            return {"share": False, "remotes": [], "missing": [], "others": names,
                    "error": str(exc)}
        shared_to = ledger_remotes(self._ws.repo.root, config, names)
        return {"share": config.settings.ledger.share, "remotes": shared_to,
                "missing": [r for r in shared_to if r not in names],
                "others": [r for r in names if r not in shared_to], "error": None}
