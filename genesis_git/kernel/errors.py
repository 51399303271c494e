"""One error type for users, the documented exit codes, and the one error gate.

Every door (the command line, the hooks, the MCP server) hands what escaped its work to
:func:`handle`: a :class:`GenesisError` (or a locked, corrupt or read-only store) becomes
one line plus its documented exit code; a bug's traceback goes to the log file (see
:mod:`genesis_git.kernel.log`) and is shown only with ``--debug``.

This module imports only the standard library (the hooks use it too).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from enum import IntEnum


class ExitCode(IntEnum):
    """Every exit status of ``genesis`` and of its hooks (docs/reference/exit-codes.md)."""

    OK = 0
    USER_ERROR = 1  # bad input, unknown id, failed check, broken or locked store
    USAGE = 2  # unknown option, missing argument, invalid option value (click's own code)
    ENVIRONMENT = 3  # not a git repository, bare repository, git missing
    MIRROR = 4  # the PostgreSQL mirror is unreachable, refused the login or lacks a permission
    REMOTE = 5  # the git remote cannot be read, refused the ledger or holds a broken one
    CHECK_FAILED = 6  # genesis check --fail-on: a file the change probably forgot reached it
    COMMIT_REJECTED = 65  # commit-msg with story.require_story: no story id (sysexits EX_DATAERR)
    INTERNAL = 70  # a bug in genesis: logged with its traceback (sysexits EX_SOFTWARE)
    INTERRUPTED = 130  # Ctrl-C
    BROKEN_PIPE = 141  # the reader of the output went away (`| head -1`), as for git


class GenesisError(Exception):
    """An error the user can act on.  ``str(err)`` is the whole message."""

    exit_code: int = ExitCode.USER_ERROR

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class NotFound(GenesisError):
    """The thing asked for does not exist: an unknown story, session, note or file.

    Its exit code is a user error's (1, as ``git show`` of an unknown revision fails); a
    door that speaks another protocol tells it apart by its class (HTTP 404)."""


class EnvironmentProblem(GenesisError):
    """Git is missing, or the directory is not a usable repository."""

    exit_code = ExitCode.ENVIRONMENT


class StoreError(GenesisError):
    """The SQLite store is corrupt, locked, or from a newer genesis."""


class ConfigError(GenesisError):
    """A configuration file or variable holds a value genesis cannot use."""


class MirrorError(GenesisError):
    """The PostgreSQL mirror failed: nothing was changed locally, the batch was rolled back."""

    exit_code = ExitCode.MIRROR


class UsageError(GenesisError):
    """An option value that is not valid (an unknown --type, an empty query)."""

    exit_code = ExitCode.USAGE


CORRUPT_HINT = ("run `genesis doctor`; move the store folder aside, then `genesis init` and "
                "`genesis story rebuild` bring back what git holds")


def store_error(exc: BaseException, store: object | None = None) -> StoreError | None:
    """The user's version of an SQLite error about the store (``None``: not one of those).

    ``database is locked``, ``database disk image is malformed``, ``file is not a
    database`` and a read-only store are conditions of the user's machine, not
    bugs: each gets one line that says what to do.
    """
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is None or not isinstance(exc, sqlite3.DatabaseError):
        return None
    text = str(exc)
    where = f"the genesis store at {store}" if store else "the genesis store"
    if "not a database" in text or "malformed" in text:
        return StoreError(f"{where} is corrupt ({text})", hint=CORRUPT_HINT)
    if "locked" in text or "busy" in text:
        return StoreError(f"{where} is locked by another process",
                          hint="retry in a moment, or raise GENESIS_BUSY_TIMEOUT_MS")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return StoreError(f"{where} cannot be written ({text})",
                          hint="check the folder's permissions")
    if "disk I/O" in text or "database or disk is full" in text:
        return StoreError(f"{where} cannot be written ({text})",
                          hint="check the disk's free space")
    return None


# -- the one error gate ------------------------------------------------------------------

Record = Callable[[str, str], object]
"""Writes a failure to a log: ``(summary, traceback)`` -> the file written, or ``None``."""


class Failure:
    """What a door shows for an exception: one line and an exit code.  (A plain class: the
    hooks load this module on every commit, and ``dataclasses`` costs more than it.)"""

    __slots__ = ("code", "message", "internal", "log")

    def __init__(self, code: int, message: str, internal: bool, log: str | None = None):
        self.code = code
        self.message = message  # the one line, without the door's prefix
        self.internal = internal  # a bug: its traceback is in ``log``
        self.log = log  # the log file written (``None``: none was, or none could be)

    def __repr__(self) -> str:
        return (f"Failure({self.code!r}, {self.message!r}, internal={self.internal!r}, "
                f"log={self.log!r})")


def summary(exc: BaseException) -> str:
    """``Type: message`` on one line."""
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")


def expected(exc: BaseException,
             store: Callable[[], object | None] | None = None) -> GenesisError | None:
    """The user's version of ``exc`` (``None``: a bug).  ``store`` names the store for the
    message of a store error; it is called only then."""
    if isinstance(exc, GenesisError):
        return exc
    user = store_error(exc)
    if user is not None and store is not None:
        where = store()
        if where is not None:
            user = store_error(exc, where) or user
    return user


def handle(exc: BaseException, *, record: Record,
           store: Callable[[], object | None] | None = None, debug: bool = False,
           log_expected: bool = False) -> Failure:
    """The one line and the exit code for ``exc``, the same for every door.

    A bug's summary and traceback go to ``record`` (an expected failure's too with
    ``log_expected``: the hooks keep every failure for ``genesis story rebuild``); with
    ``debug``, the traceback is also shown on stderr."""
    import os
    import traceback

    if isinstance(exc, KeyboardInterrupt):
        return Failure(int(ExitCode.INTERRUPTED), "interrupted", False)
    user = expected(exc, store)
    where = None
    if user is None or log_expected:
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        written = record(summary(exc), detail)
        where = os.fspath(written) if isinstance(written, (str, os.PathLike)) else None
    if debug:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    if user is not None:
        return Failure(int(user.exit_code), str(user), False, where)
    tail = (f"the traceback is in {where}" if where is not None
            else "run with --debug for the traceback")
    return Failure(int(ExitCode.INTERNAL), f"{summary(exc)} ({tail})", True, where)
