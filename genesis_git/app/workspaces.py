"""The repositories a long-lived process (``genesis mcp``) keeps open, least recently used
first, each as a :class:`~genesis_git.app.facade.Genesis` with its store, search base and impact
corpus warm; at most ``mcp.max_repos`` of them."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError, UsageError

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

DEFAULT_MAX_REPOS = 4


class Workspaces:
    """The open repositories, least recently used first; at most ``limit`` are kept."""

    def __init__(self, limit: int = DEFAULT_MAX_REPOS, default: Path | None = None):
        self.limit = max(1, limit)
        self.default = default
        self._open: OrderedDict[Path, tuple[Genesis, tuple[Any, ...]]] = OrderedDict()
        self._roots: dict[str, Path] = {}

    def _root(self, repo: str | None) -> Path:
        from genesis_git.git.repo import find_repo

        if repo is not None and not Path(repo).is_absolute():
            raise UsageError(f"repo must be an absolute path (got {repo!r})")
        where = Path(repo) if repo is not None else (self.default or Path.cwd())
        key = str(where)
        root = self._roots.get(key)
        if root is None or not (root / ".git").exists():
            root = find_repo(where).root
            if len(self._roots) > 256:
                self._roots.clear()
            self._roots[key] = root
        return root

    @staticmethod
    def _config_stamp(root: Path) -> tuple[Any, ...]:
        """What the configuration of ``root`` was read from; a change reopens the repository."""
        from genesis_git.config.settings import CONFIG_FILE

        stamp: list[Any] = []
        for name in (CONFIG_FILE, "pyproject.toml"):
            try:
                st = (root / name).stat()
                stamp.append((st.st_mtime_ns, st.st_size))
            except OSError:
                stamp.append(None)
        return tuple(stamp)

    def get(self, repo: str | None) -> Genesis:
        from genesis_git.app.facade import Genesis

        root = self._root(repo)
        stamp = self._config_stamp(root)
        held = self._open.get(root)
        if held is not None and held[1] != stamp:
            held[0].close()
            del self._open[root]
            held = None
        if held is None:
            g = Genesis(root, use_rag=None, keep_corpus=True)  # the engine decides, as the CLI
            g.workspace.caught_up()  # open now: a broken store or config is this call's error
            self._open[root] = (g, stamp)
            while len(self._open) > self.limit:
                _, (old, _) = self._open.popitem(last=False)
                old.close()
        self._open.move_to_end(root)
        return self._open[root][0]

    def roots(self) -> list[Path]:
        return list(self._open)

    def close(self) -> None:
        while self._open:
            _, (g, _) = self._open.popitem()
            g.close()


def max_repos(where: Path) -> int:
    """``mcp.max_repos`` of the repository around ``where`` (or of the environment)."""
    from genesis_git.config.settings import load_config
    from genesis_git.git.repo import find_repo

    try:
        root = find_repo(where).root
    except GenesisError:
        root = where
    try:
        return max(1, load_config(root).settings.mcp.max_repos)
    except GenesisError:
        return DEFAULT_MAX_REPOS
