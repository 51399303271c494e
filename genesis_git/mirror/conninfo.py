"""Where the mirror is, and keeping its password out of sight.

The URL comes from ``--url``, else from the configuration (``[ledger] mirror``
in ``.genesis.toml`` or ``[tool.genesis.ledger]``, which
``GENESIS_LEDGER_MIRROR`` overrides).  A password is read only from the
environment (``PGPASSWORD``, or a URL in ``GENESIS_LEDGER_MIRROR``) or from
libpq's own files (``~/.pgpass``, ``PGPASSFILE``, a service file): a URL that
holds a password on the command line or in a configuration file is refused,
because those are seen by other users (``ps``, shell history) or committed.

Every text genesis shows about the mirror goes through :func:`scrub`, which
masks the password wherever it could appear.  This module imports only the
standard library: it works before psycopg is even installed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from genesis_git.kernel.environment import setting_variable
from genesis_git.kernel.errors import GenesisError, UsageError

MASK = "***"
ENV_URL = setting_variable("ledger", "mirror")
HOW_TO_CONFIGURE = (
    'no PostgreSQL mirror is configured: set mirror = "postgresql://USER@HOST/DB" under '
    f"[ledger] in .genesis.toml, or {ENV_URL}, or pass --url "
    "(the password goes in PGPASSWORD or ~/.pgpass, never in the URL)")

_SCHEMES = ("postgresql://", "postgres://")
# user:password@ inside any URL-looking text
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?=@)")
# password=... in a query string or a key=value connection string (quoted or not)
_KV_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|[^\s&]*)",
                          re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """A mirror to connect to: the URL as given, and where it came from."""

    url: str
    source: str  # "--url", "GENESIS_LEDGER_MIRROR" or the config file

    @property
    def shown(self) -> str:
        """The URL with its password masked: the only form ever printed or logged."""
        return mask(self.url)

    def secrets(self) -> list[str]:
        return secrets_of(self.url)


def is_url(text: str) -> bool:
    return text.startswith(_SCHEMES)


def _kv_pairs(conninfo: str) -> dict[str, str]:
    """``key=value`` pairs of a libpq connection string (values may be single-quoted)."""
    out: dict[str, str] = {}
    for m in re.finditer(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", conninfo):
        value = m.group(2)
        if value.startswith("'") and value.endswith("'") and len(value) >= 2:
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out[m.group(1).lower()] = value
    return out


def password_of(conninfo: str) -> str | None:
    """The password written into a URL or a ``key=value`` string, if any."""
    if is_url(conninfo):
        parts = urlsplit(conninfo)
        if "@" in parts.netloc:
            userinfo = parts.netloc.rsplit("@", 1)[0]
            if ":" in userinfo:
                return unquote(userinfo.split(":", 1)[1])
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if key.lower() == "password":
                return value
        return None
    return _kv_pairs(conninfo).get("password")


def secrets_of(conninfo: str) -> list[str]:
    """Every password that a message about this mirror could reveal."""
    found = [password_of(conninfo) or "", os.environ.get("PGPASSWORD", "")]
    return [s for s in found if s]


def mask(text: str) -> str:
    """``text`` with every URL password and ``password=`` value replaced by ``***``."""
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + MASK, text)
    return _KV_PASSWORD.sub(lambda m: m.group("head") + MASK, text)


def scrub(text: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """:func:`mask`, and every known secret (of 3 characters or more) removed wherever it is."""
    text = mask(text)
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= 3:
            text = text.replace(secret, MASK)
    return text


def check_url(url: str, source: str) -> None:
    """A URL genesis can use; a password is accepted only from the environment."""
    if not url.strip():
        raise UsageError(f"{source}: the mirror URL is empty")
    if not is_url(url) and "=" not in url:
        raise UsageError(f"{source}: {mask(url)!r} is not a PostgreSQL URL "
                         "(postgresql://USER@HOST:PORT/DB or 'host=… dbname=…')")
    if password_of(url) is not None and source != ENV_URL:
        where = ("a password on the command line is seen by other users of this machine"
                 if source == "--url" else "a password in a configuration file gets committed")
        raise UsageError(f"{source}: the mirror URL holds a password ({mask(url)}); {where}: "
                         "put it in PGPASSWORD or ~/.pgpass instead")


def resolve(url: str | None, configured: str, config_sources: list[str]) -> Target:
    """The mirror to use: ``--url``, else the configured one; a clear error without either."""
    if url is not None:
        check_url(url, "--url")
        return Target(url, "--url")
    if not configured.strip():
        raise GenesisError(HOW_TO_CONFIGURE)
    env_source = f"env:{ENV_URL}"
    if env_source in config_sources:
        source = ENV_URL
    else:
        files = [s for s in config_sources if not s.startswith("env:")]
        source = "[ledger] mirror" + (f" ({', '.join(files)})" if files else "")
    check_url(configured, source)
    return Target(configured, source)
