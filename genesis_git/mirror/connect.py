"""Connecting to the mirror, and turning every PostgreSQL failure into one masked line.

psycopg 3 is an optional extra (``postgres``): without it every mirror command says
how to install it into this genesis (exit 3; :mod:`genesis_git.kernel.extras`).  The
password is never given to psycopg by genesis: libpq reads ``PGPASSWORD``,
``~/.pgpass`` or a service file itself.  Failures become a
:class:`~genesis_git.kernel.errors.MirrorError` (exit 4) whose text has been
scrubbed of the password; the original exception is not chained, so neither
``--debug`` nor the log can show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from genesis_git.kernel.errors import EnvironmentProblem, MirrorError, UsageError
from genesis_git.kernel.extras import install_hint
from genesis_git.mirror import schema
from genesis_git.mirror.conninfo import Target, scrub

INSTALL_HINT = "the PostgreSQL mirror needs psycopg 3, an optional extra"
CONNECT_TIMEOUT = 10  # seconds, unless the URL sets connect_timeout


def psycopg() -> ModuleType:
    try:
        import psycopg as module
    except ImportError:
        raise EnvironmentProblem(INSTALL_HINT,
                                 hint=f"install it with: {install_hint('postgres')}") from None
    return module


def _first_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0] if lines else ""


def describe(exc: BaseException, target: Target) -> str:
    """One line that says what went wrong, without the password."""
    pg = psycopg()
    sqlstate = getattr(exc, "sqlstate", None) or ""
    message = str(exc)
    # libpq's connection errors repeat themselves per address; the last line says why
    detail = getattr(getattr(exc, "diag", None), "message_primary", None) or ""
    if isinstance(exc, pg.OperationalError):
        # "connection to server at "h", port 5432 failed: Connection refused\n\tIs the
        # server running …": the reason follows the last "failed:"
        reasons = re.findall(r"^.*failed:\s*(?:FATAL:\s*)?(.+)$", detail or message, re.M)
        detail = reasons[-1].strip() if reasons else (detail or _first_line(message))
    detail = detail or _first_line(message) or type(exc).__name__
    if (sqlstate.startswith("28") or "password authentication failed" in message
            or "no password supplied" in message):
        what = "the mirror refused the login"
    elif sqlstate == "42501":
        what = "the mirror's user lacks a permission"
    elif sqlstate.startswith("08") or isinstance(exc, pg.OperationalError):
        what = "cannot reach the mirror"
    else:
        what = "the mirror failed"
    return scrub(f"{what} at {target.shown}: {detail}", target.secrets())


def fail(exc: BaseException, target: Target) -> MirrorError:
    return MirrorError(describe(exc, target))


def _kwargs(target: Target) -> dict[str, Any]:
    pg = psycopg()
    try:
        given = pg.conninfo.conninfo_to_dict(target.url)
    except pg.ProgrammingError as exc:
        raise UsageError(scrub(f"{target.source}: cannot read the mirror URL {target.shown}: "
                               f"{_first_line(str(exc))}", target.secrets())) from None
    extra: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT
    if "application_name" not in given:
        extra["application_name"] = "genesis"
    return extra


@contextmanager
def connect(target: Target, *, migrate: bool = True) -> Iterator[Any]:
    """An open connection to the mirror, its schema current when ``migrate``.

    Any PostgreSQL error inside the block becomes a :class:`MirrorError`; an
    open transaction is rolled back (the connection is closed without commit).
    """
    pg = psycopg()
    kwargs = _kwargs(target)
    try:
        conn = pg.connect(target.url, **kwargs)
    except pg.Error as exc:
        raise fail(exc, target) from None
    try:
        if migrate:
            try:
                schema.migrate(conn)
            except schema.NewerSchema as exc:
                raise MirrorError(
                    f"the mirror at {target.shown} has schema version {exc.args[0]}, newer than "
                    f"this genesis knows ({schema.VERSION}): upgrade genesis") from None
        yield conn
    except pg.Error as exc:
        _rollback(conn)
        raise fail(exc, target) from None
    except BaseException:
        _rollback(conn)
        raise
    finally:
        conn.close()


def _rollback(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:  # pragma: no cover - the connection is already gone
        pass
