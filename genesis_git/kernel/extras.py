"""How to install an optional extra (``mcp``, ``postgres``) into the genesis that runs.

``genesis-git`` is not on PyPI, so ``pip install 'genesis-git[mcp]'`` cannot work: the
command that does depends on how this genesis was installed.  pip records that in the
distribution's ``direct_url.json`` (PEP 610): a clone (editable or not) gets
``python -m pip install -e '<clone>[mcp]'``, a wheel gets ``… '<wheel>[mcp]'``, a pipx
environment gets ``pipx inject``; anything else gets both ways, from a clone and from a
wheel.  The published form follows, for the day it works.

This module imports only the standard library.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

DISTRIBUTION = "genesis-git"
WHEEL = "genesis_git-<version>-py3-none-any.whl"


def published(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def generic_hint(extra: str) -> str:
    """The same words wherever genesis was installed from (help texts, the docs)."""
    return (f"in a clone of genesis: pip install -e '.[{extra}]'; from a wheel: "
            f"pip install '{WHEEL}[{extra}]'; once {DISTRIBUTION} is published: "
            f"{published(extra)}")


def _origin() -> dict[str, object] | None:
    """The ``direct_url.json`` of the installed distribution, if pip wrote one and that
    distribution is the genesis that runs (not another install found on the path)."""
    from importlib import metadata

    here = Path(__file__).resolve()
    try:
        dist = metadata.distribution(DISTRIBUTION)
        text = dist.read_text("direct_url.json")
        data = json.loads(text) if text else None
        installed = Path(str(dist.locate_file("genesis_git/kernel/extras.py"))).resolve()
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    if not isinstance(data, dict):
        return None
    clone = _local_path(data.get("url"))
    dir_info = data.get("dir_info")
    if isinstance(dir_info, dict) and dir_info.get("editable") is True and clone is not None:
        return data if here.is_relative_to(clone.resolve()) else None
    return data if installed == here else None


def _local_path(url: object) -> Path | None:
    from urllib.parse import unquote, urlparse
    from urllib.request import url2pathname

    if not isinstance(url, str) or not url.startswith("file:"):
        return None
    return Path(url2pathname(unquote(urlparse(url).path)))


def _requirements(extra: str) -> list[str]:
    """What the extra adds, as pip reads it (``mcp>=2.3,<3``), from the installed metadata."""
    from importlib import metadata

    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    found = []
    for req in requires:
        spec, _, marker = req.partition(";")
        if marker and f'extra == "{extra}"' in marker.replace("'", '"'):
            found.append(spec.strip())
    return found


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` into the environment genesis runs in."""
    python = shlex.quote(sys.executable)
    after = f"; once {DISTRIBUTION} is published: {published(extra)}"
    pipx_home = os.sep + os.path.join("pipx", "venvs") + os.sep
    requirements = _requirements(extra)
    if pipx_home in sys.prefix + os.sep and requirements:
        venv = Path(sys.prefix).name
        return "pipx inject " + " ".join(shlex.quote(w) for w in [venv, *requirements])
    origin = _origin() or {}
    path = _local_path(origin.get("url"))
    if path is not None and path.exists():
        dir_info = origin.get("dir_info")
        editable = isinstance(dir_info, dict) and dir_info.get("editable") is True
        if path.is_dir():
            return (f"{python} -m pip install {'-e ' if editable else ''}"
                    f"{shlex.quote(f'{path}[{extra}]')}{after}")
        if path.suffix == ".whl":
            return f"{python} -m pip install {shlex.quote(f'{path}[{extra}]')}{after}"
    return generic_hint(extra)
