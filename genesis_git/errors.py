"""One error type for users, and the documented exit codes.

Only the CLI boundary (``genesis_git.cli.main``) turns a :class:`GenesisError`
into one line on stderr plus its exit code.  A traceback is shown only with
``--debug``; otherwise it is written to the store's log file.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of the ``genesis`` command (documented in the README)."""

    OK = 0
    USER_ERROR = 1  # bad input, unknown id, failed check, broken store
    USAGE = 2  # unknown option or missing argument (typer/click's own code)
    ENVIRONMENT = 3  # not a git repository, bare repository, git missing
    INTERRUPTED = 130
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


class UsageError(GenesisError):
    """An option value that is not valid (an unknown --type, an empty query)."""

    exit_code = ExitCode.USAGE
