"""The background build that a large ``session start`` or ``refresh`` starts
(:func:`genesis_git.search.base.prebuild.maybe_spawn`): the session's search base,
so that the first search and the first impact are quick.

It runs as ``python -m genesis_git.app.background``, detached, with the request on
stdin and the session's build lock handed over as descriptor
:data:`genesis_git.kernel.spawn.PASSED_FD`.  It lets go of the lock as soon as the base
is saved (a search that waits for the base goes on then), and the kernel does
if it dies.  Then it prepares the impact facts of the blobs that an older
version cached without them (a blob chunked now got them where it was chunked).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from genesis_git.app.workspace import Workspace
from genesis_git.impact import facts
from genesis_git.kernel import locks
from genesis_git.kernel.spawn import PASSED_FD
from genesis_git.providers.embedders import embedder_id, get_embedder
from genesis_git.search.session_index import session_index
from genesis_git.store import sessionmap
from genesis_git.store import sessions as session_rows


def build(root: str, session_id: str, built: Callable[[], None] | None = None) -> bool:
    """Build and save the base of ``session_id`` if it is still the active one; ``built`` is
    called once the base is saved, before the facts of older blobs are prepared."""
    ctx = Workspace.open(root).context  # the store only: the journal is the commands' to apply
    row = session_rows.status(ctx.conn, session_id)
    if row is None or row[0] != "active":
        return False
    session_index(ctx.conn, session_id, embedder_id(get_embedder(ctx.config)), wait=False)
    if built is not None:
        built()
    facts.ensure(ctx.conn, sessionmap.blob_ids(ctx.conn, session_id))
    return True


def main() -> int:  # pragma: no cover - runs detached; the test watches for its file
    marker: Path | None = None
    held = True

    def let_go() -> None:
        nonlocal held
        if marker is not None and held:
            locks.release(marker, PASSED_FD)  # the lock maybe_spawn handed over
        held = False

    try:
        request = json.loads(sys.stdin.buffer.read() or b"{}")
        marker = Path(request["marker"]) if request.get("marker") else None
        build(str(request["root"]), str(request["session"]), let_go)
    except Exception:  # noqa: BLE001 - an optimisation only; a search builds the base itself
        return 1
    finally:
        let_go()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
