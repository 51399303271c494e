"""Build a session's search base in the background, so that the first search is quick.

The same process prepares the blobs' impact facts (:mod:`genesis_git.impact.facts`),
so that the first ``genesis impact`` reads them instead of every chunk's text.

The first search of a session builds the base (the postings and vectors of
every chunk the session maps) and saves it next to the store; on a large
tree that takes seconds.  After ``genesis session start`` or ``refresh``
indexed a large session that has no saved base yet, :func:`maybe_spawn`
starts ``python -m genesis_git.retrieve.prebuild`` detached (its own process
session, no terminal, output discarded) and returns at once.  The child
builds and saves the base exactly as a search would; a search that comes
first builds it itself, and the file is replaced atomically either way.  A
lock (``<session>.building`` beside the base, :mod:`genesis_git.locks`), taken
before the child starts and held by the child until it is done, keeps a
second build of the same session from starting while one runs; a child that
dies lets go of it.

``search.prebuild_chunks`` sets the size from which it is worth it (0 never).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from genesis_git import locks
from genesis_git.base import PASSED_FD, no_git_env, spawn_detached
from genesis_git.db import sessionmap
from genesis_git.db.connect import search_base_path

if TYPE_CHECKING:
    from genesis_git.session import Context


def wanted(ctx: Context, session_id: str) -> bool:
    """Whether the session is large enough and has no saved search base yet."""
    threshold = ctx.config.int("search.prebuild_chunks")
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


def wait_running(base: Path, timeout: float = MARKER_TTL, poll: float = 0.1) -> bool:
    """Wait while a live background build of ``base`` runs; ``True`` when one was waited for.

    A search that needs the base while the background process builds it waits
    for that file instead of building a second copy beside it on the same cores.
    """
    marker = _marker(base)
    waited = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            age = time.time() - marker.stat().st_mtime
        except FileNotFoundError:
            return waited
        if age >= MARKER_TTL:
            return waited  # left by a build that died
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
        spawn_detached(["-m", "genesis_git.retrieve.prebuild"], payload, no_git_env(), pass_fd=fd)
    except OSError:  # pragma: no cover - the first search builds the base instead
        locks.release(marker, fd)
        return False
    os.close(fd)  # the child holds the lock now
    return True


def build(root: str, session_id: str) -> bool:
    """Build and save the base of ``session_id`` if it is still the active one."""
    from genesis_git.embed import embedder_id, get_embedder
    from genesis_git.retrieve.session_index import session_index
    from genesis_git.session import open_context

    ctx = open_context(root)
    row = ctx.conn.execute("SELECT status FROM sessions WHERE id=?", (session_id,)).fetchone()
    if row is None or row[0] != "active":
        return False
    session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)), wait=False)
    from genesis_git.impact import facts

    facts.ensure(ctx.conn, (r[0] for r in ctx.conn.execute(
        "SELECT blob_id FROM rag_session_chunk_map WHERE session_id=? AND blob_id IS NOT NULL",
        (session_id,))))
    return True


def main() -> int:  # pragma: no cover - runs detached; the test watches for its file
    marker = None
    try:
        request = json.loads(sys.stdin.buffer.read() or b"{}")
        marker = Path(request["marker"]) if request.get("marker") else None
        build(str(request["root"]), str(request["session"]))
    except Exception:  # noqa: BLE001 - an optimisation only; a search builds the base itself
        return 1
    finally:
        if marker is not None:
            locks.release(marker, PASSED_FD)  # the lock maybe_spawn handed over
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
