"""What the hooks need, at the smallest import cost: git, the repository, two settings, the store.

Every commit starts Python twice (commit-msg, post-commit), so this module
imports nothing beyond ``os``, ``sys``, ``select`` and (when the store is used)
``sqlite3`` and the migrations.  ``subprocess``, ``pathlib``, ``dataclasses``
and ``tomllib`` each cost more than a bare interpreter start here, so:

* git runs through ``os.posix_spawnp`` (:func:`run_git`);
* :class:`HookRepo` has the attributes of :class:`genesis_git.repo.Repo` that the
  story modules use, with ``str`` paths;
* :func:`story_settings` reads the ``story.*`` settings without a TOML parser
  unless a config file mentions ``story`` outside a comment (or the environment
  sets more than the pattern and ``require_story``), in which case
  :func:`genesis_git.config.load_config` decides;
* :func:`open_store` applies the pragmas of :func:`genesis_git.db.connect.connect`
  and runs the migrations.

Tests hold each of these equal to the full implementation it stands in for.
"""

from __future__ import annotations

import os
import select
import sys

TYPE_CHECKING = False  # not `typing`: importing it costs more than the hook's work

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping, Sequence
    from typing import Any

    from genesis_git.repo import Repo
    from genesis_git.story.commits import StoryRules

DEFAULT_PATTERN = r"[A-Z][A-Z0-9]+-\d+"
LIGHT_ENV = ("GENESIS_STORY_PATTERN", "GENESIS_STORY_REQUIRE_STORY")
DB_NAME = "genesis.db"
DEFAULT_BUSY_MS = 10_000
KEEP_GIT_VARS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL")


class GitFailed(Exception):
    """A git command of a hook exited non-zero."""


def no_git_env() -> dict[str, str]:
    """The environment without inherited ``GIT_*`` variables (as ``repo.clean_env``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({k: os.environ[k] for k in KEEP_GIT_VARS if k in os.environ})
    return env


def run_git(args: Sequence[str], *, input: bytes | None = None,
            env: Mapping[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """``git args`` in the current directory: (exit code, stdout, stderr)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input is not None else (-1, -1)
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, out_w, 1),
                                      (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if input is not None:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    else:
        actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
    try:
        pid = os.posix_spawnp("git", ["git", *args], dict(env) if env is not None else os.environ,
                              file_actions=actions)
    finally:
        for fd in (out_w, err_w, in_r):
            if fd >= 0:
                os.close(fd)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    readers = [out_r, err_r]
    writers = [in_w] if input is not None else []
    pending = memoryview(input or b"")
    if writers:
        os.set_blocking(in_w, False)
        if not pending:
            os.close(in_w)
            writers = []
    while readers or writers:
        ready_r, ready_w, _ = select.select(readers, writers, [])
        for fd in ready_w:
            try:
                n = os.write(fd, pending[:65536])
            except BrokenPipeError:
                n = len(pending)
            pending = pending[n:]
            if not pending:
                os.close(fd)
                writers = []
        for fd in ready_r:
            data = os.read(fd, 65536)
            if data:
                chunks[fd].append(data)
            else:
                os.close(fd)
                readers.remove(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r])


class HookRepo:
    """The repository a hook runs in (hooks run at the top of the worktree)."""

    def __init__(self, root: str, git_dir: str, common_dir: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir

    @classmethod
    def discover(cls) -> HookRepo:
        code, out, _ = run_git(["rev-parse", "--is-bare-repository", "--git-dir",
                                "--git-common-dir", "--show-toplevel"])
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        if code != 0 or len(lines) < 4 or lines[0].strip() != "false":
            from genesis_git.repo import find_repo

            repo = find_repo()  # raises the error that explains what is wrong
            return cls(str(repo.root), str(repo.git_dir), str(repo.common_dir))
        cwd = os.getcwd()
        return cls(lines[3], os.path.realpath(os.path.join(cwd, lines[1])),
                   os.path.realpath(os.path.join(cwd, lines[2])))

    @property
    def project_id(self) -> str:
        """As :attr:`genesis_git.repo.Repo.project_id`."""
        common = self.common_dir.rstrip("/")
        main = os.path.dirname(common) if os.path.basename(common) == ".git" else common
        return os.path.basename(main)

    def git(self, *args: str, input: bytes | None = None, check: bool = True,
            env: Mapping[str, str] | None = None) -> bytes:
        code, out, err = run_git(args, input=input, env=env)
        if check and code != 0:
            msg = err.decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(f"git {' '.join(args[:2])} failed: {msg[-1] if msg else code}")
        return out

    def to_repo(self) -> Repo:
        from pathlib import Path

        from genesis_git.repo import Repo

        return Repo(root=Path(self.root), git_dir=Path(self.git_dir),
                    common_dir=Path(self.common_dir))


# -- settings -------------------------------------------------------------------------

def _mentions_story(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return any("story" in line.lower() for line in fh
                       if not line.lstrip().startswith("#"))
    except OSError:
        return False


def _env_bool(text: str) -> bool | None:
    low = text.strip().lower()
    if low in {"1", "true", "yes", "on"}:
        return True
    if low in {"0", "false", "no", "off", ""}:
        return False
    return None


def story_settings(root: str) -> StoryRules:
    """The ``story.*`` settings for the worktree at ``root``."""
    from genesis_git.story.commits import StoryRules

    require_env = os.environ.get("GENESIS_STORY_REQUIRE_STORY")
    needs_full = any(_mentions_story(os.path.join(root, name))
                     for name in ("pyproject.toml", ".genesis.toml"))
    if require_env is not None and _env_bool(require_env) is None:
        needs_full = True  # let the real loader say what is wrong
    if any(k.startswith("GENESIS_STORY_") and k not in LIGHT_ENV for k in os.environ):
        needs_full = True
    if needs_full:
        from pathlib import Path

        from genesis_git.config import load_config

        return StoryRules.from_config(load_config(Path(root)))
    pattern = os.environ.get("GENESIS_STORY_PATTERN", DEFAULT_PATTERN)
    return StoryRules(pattern, require=bool(require_env is not None and _env_bool(require_env)))


# -- the store --------------------------------------------------------------------------

def store_dir(repo: HookRepo) -> str:
    """As :func:`genesis_git.db.connect.store_dir`."""
    home = os.environ.get("GENESIS_HOME")
    if home:
        return os.path.expanduser(home)
    return os.path.join(repo.common_dir, "genesis")


def store_path(repo: HookRepo) -> str:
    return os.path.join(store_dir(repo), DB_NAME)


def busy_timeout_ms() -> int:
    try:
        return int(os.environ.get("GENESIS_BUSY_TIMEOUT_MS", DEFAULT_BUSY_MS))
    except ValueError:
        return DEFAULT_BUSY_MS


def known_migrations() -> list[str] | None:
    """The migration names of :mod:`genesis_git.db.migrations`, read from its source, so
    that a store that is up to date costs no import of the connection stack."""
    import re

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(here, "db", "migrations.py"), encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    return re.findall(r"^def (m\d{3}_\w+)\(", text, re.M)


def _up_to_date(conn: sqlite3.Connection) -> bool:
    import sqlite3

    known = known_migrations()
    if not known:
        return False
    try:
        done = [r[0] for r in conn.execute("SELECT name FROM _genesis_migrations")]
    except sqlite3.OperationalError:
        return False
    return set(done) == set(known)


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
        conn.execute("PRAGMA page_size = 16384")  # db.connect.PAGE_SIZE
    if migrate:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA journal_size_limit = 4194304")  # db.connect.WAL_LIMIT
    if migrate and not _up_to_date(conn):
        from genesis_git.db.migrations import migrate as run_migrations

        run_migrations(conn)
    return conn


def spawn_detached(args: Sequence[str], payload: bytes, env: Mapping[str, str]) -> int:
    """Start ``python args`` in its own session with ``payload`` on stdin; do not wait."""
    in_r, in_w = os.pipe()
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, in_r, 0),
               (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_CLOSE, in_w)]
    try:
        pid = os.posix_spawn(sys.executable, [sys.executable, *args], dict(env),
                             file_actions=actions, setsid=True)
    finally:
        os.close(in_r)
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(in_w, view):]
    finally:
        os.close(in_w)
    return pid
