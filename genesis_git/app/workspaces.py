"""The repositories a long-lived process (``genesis mcp``) keeps open, least recently used
first, each as a :class:`~genesis_git.app.facade.Genesis` with its store, search base and impact
corpus warm; at most ``mcp.max_repos`` of them.

Each repository has a lock of its own (:meth:`Workspaces.using`): the first index of a large
repository holds that repository's calls, not the calls on the others.  A repository in use
is never closed to make room; the limit is kept once it is free again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError, UsageError

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

DEFAULT_MAX_REPOS = 4
#: how to say where a call should run, in every message about a missing repository
PASS_REPO = ("pass repo=<absolute path of the repository>, or start the server inside it "
             "(genesis -C <repository> mcp)")

Roots = Callable[[], "list[Path] | None"]


class Workspaces:
    """The open repositories, least recently used first; at most ``limit`` are kept."""

    def __init__(self, limit: int = DEFAULT_MAX_REPOS, default: Path | None = None):
        self.limit = max(1, limit)
        self.default = default
        self._open: OrderedDict[Path, tuple[Genesis, tuple[Any, ...]]] = OrderedDict()
        self._roots: dict[str, Path] = {}
        self._guard = threading.Lock()  # the maps above
        self._locks: dict[Path, threading.Lock] = {}  # one per repository

    def _root(self, repo: str | None, roots: Roots | None = None) -> Path:
        if repo is not None:
            if not Path(repo).is_absolute():
                raise UsageError(f"repo must be an absolute path (got {repo!r})")
            where = Path(repo)
            if not where.exists():
                raise UsageError(f"repo {repo}: no such folder")
            if not where.is_dir():
                raise UsageError(f"repo {repo}: a file, not a folder (give the repository's "
                                 "folder, or a folder inside it)")
            try:
                return self._find(where)
            except UsageError:
                raise
            except GenesisError as exc:
                said = exc.message.split(": ", 1)[-1]
                raise UsageError(f"repo {repo}: {said} (give the repository's folder, or a "
                                 "folder inside it)") from None
        here = self.default or Path.cwd()
        try:
            return self._find(here)
        except GenesisError:
            pass
        offered = roots() if roots is not None else None
        if not offered:
            raise UsageError(f"the server's working directory ({here}) is not in a git "
                             f"repository, and the client offers no workspace roots: {PASS_REPO}")
        for folder in offered:
            try:
                return self._find(folder)
            except GenesisError:
                continue
        listed = ", ".join(str(f) for f in offered)
        raise UsageError(f"none of the client's workspace roots ({listed}) is in a git "
                         f"repository: {PASS_REPO}")

    def _find(self, where: Path) -> Path:
        from genesis_git.git.repo import find_repo

        key = str(where)
        with self._guard:
            root = self._roots.get(key)
        if root is None or not (root / ".git").exists():
            root = find_repo(where).root
            with self._guard:
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

    def lock(self, root: Path) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(root, threading.Lock())

    @contextmanager
    def using(self, repo: str | None, roots: Roots | None = None) -> Iterator[Genesis]:
        """The repository of ``repo`` (else the server's, else the first of the client's
        ``roots`` in a repository), held for the block: calls on it wait, others go on."""
        root = self._root(repo, roots)
        with self.lock(root):
            yield self._opened(root)
        self._trim()

    def _opened(self, root: Path) -> Genesis:
        """``root`` opened (or reopened when its configuration changed); its lock is held."""
        from genesis_git.app.facade import Genesis

        stamp = self._config_stamp(root)
        with self._guard:
            held = self._open.get(root)
        if held is not None and held[1] != stamp:
            with self._guard:
                del self._open[root]
            held[0].close()
            held = None
        if held is None:
            g = Genesis(root, use_rag=None, keep_corpus=True)  # the engine decides, as the CLI
            g.workspace.caught_up()  # open now: a broken store or config is this call's error
            held = (g, stamp)
        with self._guard:
            self._open[root] = held
            self._open.move_to_end(root)
        return held[0]

    def _trim(self) -> None:
        """Close the least recently used repositories past the limit, if nobody uses them."""
        with self._guard:
            order = list(self._open)
        for root in order:
            with self._guard:
                if len(self._open) <= self.limit:
                    return
            lock = self.lock(root)
            if not lock.acquire(blocking=False):
                continue  # in use: kept until it is free
            try:
                with self._guard:
                    held = self._open.pop(root, None)
                if held is not None:
                    held[0].close()
            finally:
                lock.release()

    def roots(self) -> list[Path]:
        with self._guard:
            return list(self._open)

    def close(self) -> None:
        with self._guard:
            held = list(self._open.values())
            self._open.clear()
        for g, _ in held:
            g.close()


def repository_root(where: Path) -> Path | None:
    """The root of the repository around ``where``, or None outside one."""
    from genesis_git.git.repo import find_repo

    try:
        return find_repo(where).root
    except GenesisError:
        return None


def max_repos(where: Path) -> int:
    """``mcp.max_repos`` of the repository around ``where`` (or of the environment)."""
    from genesis_git.config.settings import load_config

    root = repository_root(where) or where
    try:
        return max(1, load_config(root).settings.mcp.max_repos)
    except GenesisError:
        return DEFAULT_MAX_REPOS
