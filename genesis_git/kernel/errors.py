"""One error type for users, and the documented exit codes.

Only the CLI boundary (``genesis_git.cli.main``) turns a :class:`GenesisError`
into one line on stderr plus its exit code.  A traceback is shown only with
``--debug``; otherwise it is written to the store's log file.

This module imports only the standard library (the hooks use it too).
"""

from __future__ import annotations

import sys
from enum import IntEnum


class ExitCode(IntEnum):
    """Every exit status of ``genesis`` and of its hooks (docs/reference/exit-codes.md)."""

    OK = 0
    USER_ERROR = 1  # bad input, unknown id, failed check, broken or locked store
    USAGE = 2  # unknown option, missing argument, invalid option value (click's own code)
    ENVIRONMENT = 3  # not a git repository, bare repository, git missing
    MIRROR = 4  # the PostgreSQL mirror is unreachable, refused the login or lacks a permission
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
