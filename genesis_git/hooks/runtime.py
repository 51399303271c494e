"""What the hooks need, at the smallest import cost: git, the repository, the store.

Every commit starts Python twice (commit-msg, post-commit), so this module
imports nothing beyond ``os``, the kernel (standard library only) and (when the
store is used) ``sqlite3`` and, for a store that needs them, the migrations.
``subprocess``, ``pathlib``, ``dataclasses`` and ``tomllib`` each cost more than a
bare interpreter start here, so:

* git runs through the one door's ``posix_spawnp`` runner
  (:data:`genesis_git.kernel.gitrun.SPAWN`);
* :class:`HookRepo` has the attributes of :class:`genesis_git.git.repo.Repo` that the
  story modules use, with ``str`` paths;
* :func:`genesis_git.stories.commits.story_settings` (beside the rules it makes)
  reads the ``story.*`` settings without a TOML parser unless a config file
  mentions ``story`` outside a comment (or the environment sets more than the
  pattern and ``require_story``), in which case
  :func:`genesis_git.config.settings.load_config` decides;
* :func:`open_store` applies the pragmas of :func:`genesis_git.store.connect.connect`
  and runs the migrations when the store's ``PRAGMA user_version`` is not
  :data:`genesis_git.kernel.storepath.SCHEMA_VERSION`.

The store's name, location, page size and busy timeout come from
:mod:`genesis_git.kernel.storepath`, the git environment and errors from
:mod:`genesis_git.kernel.gitrun` and the detached spawn from
:mod:`genesis_git.kernel.spawn`, which the full package uses too.

Tests hold each of these equal to the full implementation it stands in for.
"""

from __future__ import annotations

import os

from genesis_git.kernel.gitlog import log_args, split_log
from genesis_git.kernel.gitrun import SPAWN, run_git
from genesis_git.kernel.storepath import (
    DB_NAME,
    PAGE_SIZE,
    SCHEMA_VERSION,
    WAL_LIMIT,
    busy_timeout_ms,
    schema_version,
)
from genesis_git.kernel.storepath import project_id as _project_id
from genesis_git.kernel.storepath import store_dir as _store_dir
from genesis_git.kernel.storyid import DEFAULT_STORY_PATTERN

TYPE_CHECKING = False  # not `typing`: importing it costs more than the hook's work

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterator, Mapping, Sequence

    from genesis_git.git.repo import Repo
    from genesis_git.kernel.gitlog import LogCommit

DEFAULT_PATTERN = DEFAULT_STORY_PATTERN
__all__ = ["DEFAULT_PATTERN", "HookRepo", "open_store", "store_dir", "store_path"]


class HookRepo:
    """The repository a hook runs in (hooks run at the top of the worktree)."""

    def __init__(self, root: str, git_dir: str, common_dir: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir

    @classmethod
    def discover(cls) -> HookRepo:
        res = run_git(["rev-parse", "--is-bare-repository", "--git-dir", "--git-common-dir",
                       "--show-toplevel"], check=False, runner=SPAWN)
        lines = res.stdout.decode("utf-8", "surrogateescape").splitlines()
        if res.returncode != 0 or len(lines) < 4 or lines[0].strip() != "false":
            from genesis_git.git.repo import find_repo

            repo = find_repo()  # raises the error that explains what is wrong
            return cls(str(repo.root), str(repo.git_dir), str(repo.common_dir))
        cwd = os.getcwd()
        return cls(lines[3], os.path.realpath(os.path.join(cwd, lines[1])),
                   os.path.realpath(os.path.join(cwd, lines[2])))

    @property
    def project_id(self) -> str:
        """As :attr:`genesis_git.git.repo.Repo.project_id`."""
        return _project_id(self.common_dir)

    def git(self, *args: str, input: bytes | None = None, check: bool = True,
            env: Mapping[str, str] | None = None) -> bytes:
        return run_git(args, input=input, env=env, check=check, runner=SPAWN).stdout

    def log(self, fmt: str, *revs: str, options: Sequence[str] = (),
            names: bool = True) -> Iterator[LogCommit]:
        """As :meth:`genesis_git.git.repo.Repo.log`, read in one piece (a hook walks little)."""
        res = run_git(log_args(fmt, revs, options, names), check=False, runner=SPAWN)
        return split_log([res.stdout] if res.returncode == 0 else [])

    def to_repo(self) -> Repo:
        from pathlib import Path

        from genesis_git.git.repo import Repo

        return Repo(root=Path(self.root), git_dir=Path(self.git_dir),
                    common_dir=Path(self.common_dir))


# -- the store --------------------------------------------------------------------------

def store_dir(repo: HookRepo) -> str:
    """As :func:`genesis_git.store.connect.store_dir`."""
    return _store_dir(repo.common_dir)


def store_path(repo: HookRepo) -> str:
    return os.path.join(store_dir(repo), DB_NAME)


def _up_to_date(conn: sqlite3.Connection) -> bool:
    return schema_version(conn) == SCHEMA_VERSION


def open_store(repo: HookRepo, *, migrate: bool = True,
               busy_ms: int | None = None) -> sqlite3.Connection:
    """A connection with the pragmas of ``db.connect.connect``; migrated unless told not to
    (the migrations module is imported only when the store is not up to date)."""
    import sqlite3

    path = store_path(repo)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    ms = busy_timeout_ms() if busy_ms is None else min(busy_ms, busy_timeout_ms())
    conn = sqlite3.connect(path, timeout=ms / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {ms}")
    if new and migrate:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    if migrate:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
    if migrate and not _up_to_date(conn):
        from genesis_git.store.migrations import migrate as run_migrations

        run_migrations(conn)
    return conn
