"""A detached child process: ``python args`` in its own session, handed a payload on
stdin and, when asked, one open descriptor; nobody waits for it.

The environment it gets is the caller's choice (usually
:func:`genesis_git.kernel.gitrun.no_git_env`).  Standard library only: the hooks
start the background indexer with it.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`: importing it costs more than a hook's work
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

PASSED_FD = 3  # where spawn_detached puts the descriptor it hands over


def spawn_detached(args: Sequence[str], payload: bytes, env: Mapping[str, str],
                   pass_fd: int | None = None) -> int:
    """Start ``python args`` in its own session with ``payload`` on stdin; do not wait.

    ``pass_fd`` is handed to the child as descriptor :data:`PASSED_FD` (a lock the
    child holds from then on, for example).
    """
    in_r, in_w = os.pipe()
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, in_r, 0),
                                      (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                      (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                                      (os.POSIX_SPAWN_CLOSE, in_w)]
    if pass_fd is not None:
        actions.append((os.POSIX_SPAWN_DUP2, pass_fd, PASSED_FD))
    try:
        pid = os.posix_spawn(sys.executable, [sys.executable, *args], dict(env),
                             file_actions=actions, setsid=True)
    finally:
        os.close(in_r)
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(in_w, view):]
    finally:
        os.close(in_w)
    return pid
