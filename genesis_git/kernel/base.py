"""The lowest layer: what both the git hooks and the full package need, standard library only.

Every commit starts Python twice (commit-msg, post-commit), so this module
imports nothing beyond ``os`` and ``sys`` at load time.  It is the one home of

* the store's layout: its file name, where it lives (``$GENESIS_HOME``, else
  ``<git common dir>/genesis``), its page size, its busy timeout, and the
  schema version that :mod:`genesis_git.store.migrations` writes into
  ``PRAGMA user_version``;
* the environment a git command that is not the hook's own must run in
  (:func:`no_git_env`), and a detached child process (:func:`spawn_detached`);
* every ``GENESIS_*`` environment variable that is not a setting (:class:`Variable`,
  :data:`ENV_VARIABLES`), the name of a setting's variable (:func:`setting_variable`) and
  the words a boolean one takes (:func:`parse_bool`);
* how ``git log`` is asked and read (:func:`log_args`, :func:`split_log`): the
  one walker of history, for :meth:`genesis_git.git.repo.Repo.log` and the hooks'
  repository alike.

:mod:`genesis_git.hooks.runtime` and :mod:`genesis_git.store.connect` both read
these names from here, so the two stay equal by construction.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any

DB_NAME = "genesis.db"
LOG_NAME = "genesis.log"
SEARCH_DIR = "search"  # saved search bases: <store folder>/search/<session>.idx
# chunk rows are a few KB each: 16 KiB pages hold several, and a cold index
# writes 40 % faster than with the default 4 KiB
PAGE_SIZE = 16384
DEFAULT_BUSY_MS = 10_000
WAL_LIMIT = 4 << 20  # bytes of WAL kept after a checkpoint
# the number of migrations in genesis_git.store.migrations; a store whose
# ``PRAGMA user_version`` equals it needs none (tests hold the two equal)
SCHEMA_VERSION = 6
DEFAULT_STORY_PATTERN = r"[A-Z][A-Z0-9]+-\d+"  # story.pattern when the config sets none
KEEP_GIT_VARS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL")


# -- the environment: every GENESIS_* variable that is not a setting, declared once ---------
# A setting's own variable (GENESIS_<SECTION>_<KEY>) comes from the settings' declaration
# (genesis_git.config.schema) through setting_variable; these steer the process itself.
# docs/reference/environment.md is generated from ENV_VARIABLES and the settings.

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off", "")


class Variable:
    """One environment variable: its name, kind, default (as text) and meaning.

    ``kind`` is ``path``, ``int``, ``float``, ``choice`` (one of ``choices``, else the
    default), ``switch`` (off when the text is one of ``choices``) or ``text``.
    """

    __slots__ = ("name", "kind", "default", "doc", "choices")

    def __init__(self, name: str, kind: str, default: str, doc: str,
                 choices: tuple[str, ...] = ()) -> None:
        self.name, self.kind, self.default, self.doc = name, kind, default, doc
        self.choices = choices

    def __repr__(self) -> str:
        return f"Variable({self.name!r})"

    def raw(self, env: Mapping[str, str] | None = None) -> str | None:
        """The text as set, or ``None`` when unset."""
        return (os.environ if env is None else env).get(self.name)

    def text(self, env: Mapping[str, str] | None = None) -> str:
        """The text as set, else the default."""
        found = self.raw(env)
        return self.default if found is None else found

    def number(self, env: Mapping[str, str] | None = None) -> float:
        """An ``int`` or ``float`` variable's value; text that is no number reads as the default."""
        parse = int if self.kind == "int" else float
        try:
            return parse(self.text(env))
        except ValueError:
            return parse(self.default)

    def choice(self, env: Mapping[str, str] | None = None) -> str:
        """A ``choice`` variable's value; any other text reads as the default."""
        found = self.text(env)
        return found if found in self.choices else self.default

    def on(self, env: Mapping[str, str] | None = None) -> bool:
        """A ``switch``: on unless its text is one of the words that turn it off."""
        return self.text(env) not in self.choices


ENV_HOME = Variable(
    "GENESIS_HOME", "path", "",
    "folder of the store (genesis.db, its log and saved search bases); "
    "default: `<git common dir>/genesis`")
ENV_BUSY_TIMEOUT_MS = Variable(
    "GENESIS_BUSY_TIMEOUT_MS", "int", str(DEFAULT_BUSY_MS),
    "milliseconds a command waits for another process's write lock on the store")
ENV_HOOKS = Variable(
    "GENESIS_HOOKS", "switch", "1",
    "`0`: the installed git hooks do nothing (the commit goes on untouched)", ("0",))
ENV_HOOKS_INDEX = Variable(
    "GENESIS_HOOKS_INDEX", "choice", "background",
    "how post-commit indexes the commit's new blobs: `background` (a detached process), "
    "`inline` or `off`", ("background", "inline", "off"))
ENV_PREPUSH_TIMEOUT = Variable(
    "GENESIS_PREPUSH_TIMEOUT", "float", "10",
    "seconds the pre-push hook spends pushing the story ledger")
ENV_DEBUG = Variable(
    "GENESIS_DEBUG", "switch", "",
    "set (and not `0`): print the traceback of an unexpected error, as `--debug` does",
    ("", "0"))
ENV_TEST_PAUSE_AFTER_BATCH = Variable(
    "GENESIS_TEST_PAUSE_AFTER_BATCH", "path", "",
    "tests only: the indexer creates this file after its first batch and waits")

ENV_VARIABLES = (ENV_HOME, ENV_BUSY_TIMEOUT_MS, ENV_HOOKS, ENV_HOOKS_INDEX, ENV_PREPUSH_TIMEOUT,
                 ENV_DEBUG, ENV_TEST_PAUSE_AFTER_BATCH)


def setting_variable(section: str, key: str) -> str:
    """The variable that overrides the setting ``section.key``: ``GENESIS_SECTION_KEY``."""
    return f"GENESIS_{section}_{key}".upper()



def parse_bool(text: str) -> bool | None:
    """A boolean setting's text (``1``/``0``, ``true``/``false``, …); ``None`` if neither."""
    low = text.strip().lower()
    if low in TRUE_WORDS:
        return True
    if low in FALSE_WORDS:
        return False
    return None


def store_dir(common_dir: str) -> str:
    """``$GENESIS_HOME`` if set, else ``<git common dir>/genesis``."""
    home = ENV_HOME.raw()
    if home:
        return os.path.expanduser(home)
    return os.path.join(common_dir, "genesis")


def project_id(common_dir: str) -> str:
    """Stable for a clone: the main worktree's folder name (the folder of the common dir)."""
    common = common_dir.rstrip("/")
    main = os.path.dirname(common) if os.path.basename(common) == ".git" else common
    return os.path.basename(main)


def busy_timeout_ms() -> int:
    """``$GENESIS_BUSY_TIMEOUT_MS``, else 10 s."""
    return int(ENV_BUSY_TIMEOUT_MS.number())


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version a store records (0 for a blank one)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def no_git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without inherited ``GIT_*`` variables, plus ``extra``.

    Hooks run with ``GIT_DIR``, ``GIT_INDEX_FILE`` and friends set; any git
    call aimed at something other than the current repository, or made after
    the hook's own command is over, must not see them.  The identity and the
    config switches that tests and users pin are kept.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({k: os.environ[k] for k in KEEP_GIT_VARS if k in os.environ})
    if extra:
        env.update(extra)
    return env


PASSED_FD = 3  # where spawn_detached puts the descriptor it hands over


def spawn_detached(args: Sequence[str], payload: bytes, env: Mapping[str, str],
                   pass_fd: int | None = None) -> int:
    """Start ``python args`` in its own session with ``payload`` on stdin; do not wait.

    ``pass_fd`` is handed to the child as descriptor :data:`PASSED_FD` (a lock the
    child holds from then on, for example).
    """
    in_r, in_w = os.pipe()
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, in_r, 0),
                                      (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                      (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                                      (os.POSIX_SPAWN_CLOSE, in_w)]
    if pass_fd is not None:
        actions.append((os.POSIX_SPAWN_DUP2, pass_fd, PASSED_FD))
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


def append_log(paths: Iterable[str | os.PathLike[str]], entry: str,
               rotate_at: int | None = None) -> str | os.PathLike[str] | None:
    """Append ``entry`` to the first of ``paths`` that can be written (its folder made when
    missing); a file past ``rotate_at`` bytes is moved to ``<name>.1`` first.  Returns the
    path written, ``None`` when none could be: a log must never be the reason a command or
    a hook fails."""
    for path in paths:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            if rotate_at is not None and os.path.exists(path) and os.path.getsize(path) > rotate_at:
                os.replace(path, f"{os.fspath(path)}.1")
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(entry)
            return path
        except OSError:
            continue
    return None


class Transaction:
    """One write transaction of the store: ``BEGIN IMMEDIATE`` (writers queue on the busy
    timeout), ``COMMIT`` at the end, ``ROLLBACK`` when the block raises.  It lives here so
    that the hooks' light modules and the full package write the same way."""

    def __init__(self, conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> None:
        self.conn = conn
        self.begin = begin

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute(self.begin)
        return self.conn

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


# -- git log ----------------------------------------------------------------------------

class LogCommit:
    """One commit of a log walk: its formatted header (bytes) and, when asked, the paths
    it changed."""

    __slots__ = ("header", "paths")

    def __init__(self, header: bytes, paths: list[str]) -> None:
        self.header = header
        self.paths = paths

    def __repr__(self) -> str:
        return f"LogCommit({self.header!r}, {self.paths!r})"


def log_args(fmt: str, revs: Sequence[str], options: Sequence[str] = (),
             names: bool = True) -> list[str]:
    """The arguments of ``git log`` whose output :func:`split_log` reads: each commit's
    header ``fmt`` between ``\x01`` and ``\x03``, then (with ``names``) its paths, all
    NUL-separated, so that any path or message survives."""
    return ["log", *options, *(("--name-only",) if names else ()), "-z",
            f"--format=%x01{fmt}%x03", *revs, "--"]


def split_log(blocks: Iterable[bytes]) -> Iterator[LogCommit]:
    """The commits of :func:`log_args` output given in blocks of any size, as they come."""
    buf = b""
    current: LogCommit | None = None
    for block in blocks:
        parts = (buf + block).split(b"\0")
        buf = parts.pop()
        for tok in parts:
            tok = tok.lstrip(b"\n")
            if tok.startswith(b"\x01"):
                if current is not None:
                    yield current
                header, _, tok = tok[1:].partition(b"\x03")
                current = LogCommit(header, [])
                tok = tok.lstrip(b"\n")
            if tok and current is not None:
                current.paths.append(tok.decode("utf-8", "surrogateescape"))
    tail = buf.lstrip(b"\n")
    if tail.startswith(b"\x01"):  # a last commit without paths
        if current is not None:
            yield current
        current = LogCommit(tail[1:].partition(b"\x03")[0], [])
    elif tail and current is not None:
        current.paths.append(tail.decode("utf-8", "surrogateescape"))
    if current is not None:
        yield current
