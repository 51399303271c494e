"""Worker processes for a large cold index, each leaving as soon as its parent is gone.

Only for the offline hashing embedder: each worker prepares a batch and writes
it to the store itself, in one transaction, so that nothing large travels
back to the parent.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from genesis_git.config.settings import Config
from genesis_git.index.cache import chunker_id, store_prepared
from genesis_git.index.prepare import Prepared, prepare_many
from genesis_git.providers.embedders import HashingEmbedder
from genesis_git.store.connect import store_file

POOL_MIN_MISSES = 256
POOL_WINDOW = 4
_WORKER: dict[str, Any] = {}


def start(conn: sqlite3.Connection, config: Config, embedder: Any) -> Any:
    """A pool of workers, or ``None`` when one would not help (one core, another embedder)."""
    workers = min(os.cpu_count() or 1, 4)
    if workers < 2 or type(embedder) is not HashingEmbedder:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None
    return ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                               initargs=(config, embedder.dim, store_file(conn)))


def _init_worker(config: Config, dim: int, db_path: str) -> None:  # pragma: no cover - a child
    import threading

    from genesis_git.store.connect import connect
    # A worker blocks on a queue whose other end its siblings also hold, so it would
    # outlive a parent that was killed; it leaves as soon as it is orphaned instead (an
    # unfinished batch is an uncommitted transaction, which SQLite rolls back).
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="genesis-orphan-watch", daemon=True).start()
    _WORKER["config"] = config
    _WORKER["embedder"] = HashingEmbedder(dim)
    _WORKER["conn"] = connect(Path(db_path))


def index_in_worker(work: list[tuple[str, str, bytes]], prepared: list[Prepared],
                     redo: list[str]) -> int:  # pragma: no cover - runs in a child
    embedder = _WORKER["embedder"]
    prepared = prepared + prepare_many(work, _WORKER["config"], embedder)
    return store_prepared(_WORKER["conn"], prepared, embedder.id, chunker_id(_WORKER["config"]),
                          redo)
