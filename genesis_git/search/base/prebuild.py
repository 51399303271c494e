"""Build a session's search base in the background, so that the first search is quick.

The first search of a session builds the base (the postings of every chunk
the session maps and what their vectors need) and saves it next to the
store; on a large tree that takes seconds.  After ``genesis session start`` or
``refresh`` indexed a large session that has no saved base yet,
:func:`maybe_spawn` starts ``python -m genesis_git.app.background`` detached (its
own process session, no terminal, output discarded) and returns at once.  The
child builds and saves the base exactly as a search would; a search that comes
first builds it itself, and the file is replaced atomically either way.  A
lock (``<session>.building`` beside the base, :mod:`genesis_git.kernel.locks`), taken
before the child starts and held by the child until the base is saved, keeps a
second build of the same session from starting while one runs, and a search
that finds it held waits for the base (:func:`wait_running`); a child that
dies lets go of it.  (The child then prepares the impact facts of blobs that
an older version cached without them: a blob chunked now got them where it
was chunked.)

``search.prebuild_chunks`` sets the size from which it is worth it (0 never).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from genesis_git.kernel import locks
from genesis_git.kernel.gitrun import no_git_env
from genesis_git.kernel.spawn import spawn_detached
from genesis_git.store import sessionmap
from genesis_git.store.connect import search_base_path

if TYPE_CHECKING:
    from genesis_git.index.session import Context


def wanted(ctx: Context, session_id: str) -> bool:
    """Whether the session is large enough and has no saved search base yet."""
    threshold = ctx.config.settings.search.prebuild_chunks
    if threshold <= 0:
        return False
    path = search_base_path(ctx.conn, session_id)
    if path is None or path.exists():
        return False
    return sessionmap.chunk_count(ctx.conn, session_id) >= threshold


def _marker(base: Path) -> Path:
    return base.with_suffix(".building")


def _claim(marker: Path) -> int | None:
    """The lock of a build of this session (its descriptor); ``None`` when a build holds it."""
    return locks.try_lock(marker)


WAIT_MAX = 600.0  # seconds a search waits at most for a background build


def wait_running(base: Path, timeout: float = WAIT_MAX, poll: float = 0.1) -> bool:
    """Wait while a live background build of ``base`` runs; ``True`` when one was waited for.

    A search that needs the base while the background process builds it waits
    for that file instead of building a second copy beside it on the same cores.
    A build that died holds no lock, so it is not waited for.
    """
    marker = _marker(base)
    waited = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and locks.held(marker):
        waited = True
        time.sleep(poll)
    return waited


def maybe_spawn(ctx: Context, session_id: str) -> bool:
    """Start the background build when :func:`wanted` and no build of this session is
    running; ``True`` when a process was started."""
    base = search_base_path(ctx.conn, session_id)
    if base is None or not wanted(ctx, session_id) or not hasattr(os, "posix_spawn"):
        return False
    marker = _marker(base)
    fd = _claim(marker)
    if fd is None:
        return False
    payload = json.dumps({"root": str(ctx.repo.root), "session": session_id,
                          "marker": str(marker)}).encode()
    try:
        spawn_detached(["-m", "genesis_git.app.background"], payload, no_git_env(), pass_fd=fd)
    except OSError:  # pragma: no cover - the first search builds the base instead
        locks.release(marker, fd)
        return False
    os.close(fd)  # the child holds the lock now
    return True
