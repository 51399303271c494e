"""A real PostgreSQL for the mirror's tests.

By default a private server from the ``pgserver`` package (PostgreSQL in a
wheel), started once per test session in a temporary folder and stopped at
the end; it listens only on a Unix socket there.  Where
``GENESIS_TEST_PG_URL`` is set (a superuser's URL), that server is used
instead.  Either way each test gets a fresh database, owned by a login role
that has a password, so that every test logs in as a real user would.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

ENV_URL = "GENESIS_TEST_PG_URL"

# pg_hba.conf of the private server: the superuser the tests set up with gets in
# over the socket; every other role must give its password.
HBA = """\
local all postgres trust
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
"""


def psycopg() -> Any:
    return pytest.importorskip("psycopg", reason="the mirror's tests need psycopg 3")


def with_user(url: str, user: str, dbname: str | None = None) -> str:
    """``url`` with its user (and no password) and, when given, another database."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    path = f"/{dbname}" if dbname is not None else parts.path
    return urlunsplit((parts.scheme, f"{user}@{host}", path, parts.query, ""))


@dataclass
class PgServer:
    admin_url: str
    suffix: str = field(default_factory=lambda: secrets.token_hex(4))
    passwords: dict[str, str] = field(default_factory=dict)
    checks_passwords: bool = True

    def admin(self, dbname: str | None = None) -> Any:
        url = self.admin_url
        if dbname is not None:
            parts = urlsplit(url)
            url = urlunsplit((parts.scheme, parts.netloc, f"/{dbname}", parts.query, ""))
        return psycopg().connect(url, autocommit=True)

    def role(self, name: str) -> str:
        """A login role with a password (created once per session); its full name."""
        full = f"{name}_{self.suffix}"
        if full not in self.passwords:
            password = "pw-" + secrets.token_hex(8)
            with self.admin() as conn:
                conn.execute(f'CREATE ROLE "{full}" LOGIN PASSWORD \'{password}\'')
            self.passwords[full] = password
        return full

    def url(self, user: str, dbname: str) -> str:
        return with_user(self.admin_url, user, dbname)

    def drop_roles(self) -> None:
        with self.admin() as conn:
            for full in self.passwords:
                conn.execute(f'DROP ROLE IF EXISTS "{full}"')


def _private_server() -> Iterator[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
            import pgserver
    except ImportError:
        pytest.skip(f"neither the pgserver package nor {ENV_URL} is available")
    # not under pytest's own temporary folder: as root, pgserver runs PostgreSQL as
    # another user, which must be able to reach the data folder
    folder = Path(tempfile.mkdtemp(prefix="genesis-pg-"))
    folder.chmod(0o755)
    data = folder / "data"
    server = pgserver.get_server(data, cleanup_mode="delete")
    try:
        (data / "pg_hba.conf").write_text(HBA)
        with psycopg().connect(server.get_uri(), autocommit=True) as conn:
            conn.execute("SELECT pg_reload_conf()")
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def start_server() -> Iterator[PgServer]:
    psycopg()
    external = os.environ.get(ENV_URL)
    if external:
        srv = PgServer(external)
        try:
            yield srv
        finally:
            srv.drop_roles()
        return
    gen = _private_server()
    srv = PgServer(next(gen))
    try:
        yield srv
    finally:
        srv.drop_roles()
        gen.close()


@dataclass
class PgDatabase:
    """A fresh database of one test, owned by ``user`` (password in ``password``)."""

    server: PgServer
    name: str
    user: str
    password: str

    @property
    def url(self) -> str:
        """The mirror URL as a user writes it: no password."""
        return self.server.url(self.user, self.name)

    def url_as(self, role: str) -> str:
        return self.server.url(role, self.name)

    def admin(self) -> Any:
        return self.server.admin(self.name)

    def count(self, table: str) -> int:
        with self.admin() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


@contextmanager
def fresh_database(server: PgServer) -> Iterator[PgDatabase]:
    owner = server.role("genesis_owner")
    name = "genesis_t_" + secrets.token_hex(6)
    with server.admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}" OWNER "{owner}"')
    try:
        yield PgDatabase(server, name, owner, server.passwords[owner])
    finally:
        with server.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
