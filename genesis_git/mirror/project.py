"""A repository's identity in the mirror: ``project_id``.

Every clone of one repository must give the same id, and two repositories
must not: the normalised URL of the ``origin`` remote does both
(``git@github.com:org/shop.git``, ``https://github.com/org/shop`` and
``ssh://git@github.com/org/shop.git`` are all ``github.com/org/shop``).
Credentials and ports in the remote URL are dropped, never stored.
``[ledger] project_id`` in the configuration overrides it; a repository
without ``origin`` falls back to its folder name, and says so.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>(?!//).+)$")
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")


def normalise_remote(url: str) -> str:
    """``host/path`` of a git remote URL: lower-case host, no user, password, port or ``.git``."""
    text = url.strip()
    host = ""
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme.lower() != "file":
            host = (parts.hostname or "").lower()
        path = parts.path
    elif (m := _SCP.match(text)) and not _WINDOWS_PATH.match(text):
        host, path = m.group("host").lower(), m.group("path")
    else:
        path = text
    path = re.sub(r"/+", "/", path.replace("\\", "/")).rstrip("/")
    if path.endswith(".git"):
        path = path[:-4].rstrip("/")
    if host:
        path = path.lstrip("/")
        if path.startswith("~"):
            path = path[1:].lstrip("/")
        return f"{host}/{path}" if path else host
    return path or text


def project_id(configured: str, origin_url: str | None, folder_name: str) -> tuple[str, str]:
    """``(project_id, where it came from)``: the configuration, ``origin``, or the folder."""
    if configured.strip():
        return configured.strip(), "ledger.project_id"
    if origin_url and origin_url.strip():
        return normalise_remote(origin_url), "origin"
    return folder_name, "folder name (no origin remote; set ledger.project_id)"
