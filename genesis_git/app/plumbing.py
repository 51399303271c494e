"""The plumbing of :class:`genesis_git.app.facade.Genesis`: the repository, its configuration and
the store, each opened on first use, and the parts of genesis that may be missing from an
installation (:func:`_part`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from genesis_git.kernel.errors import GenesisError

if TYPE_CHECKING:
    import sqlite3

    from genesis_git.config.settings import Config
    from genesis_git.design.library import Library
    from genesis_git.git.repo import Repo
    from genesis_git.index.session import Context
    from genesis_git.providers.llm import Engine
    from genesis_git.rag.impact_rag import ImpactRAG

Announce = Callable[[str], None]
_G = TypeVar("_G", bound="GenesisBase")


def _part(module: str, what: str) -> ModuleType:
    """A module of genesis, or one line saying that ``what`` is not installed."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise GenesisError(f"{what} is not available in this installation of genesis") from None
        raise


class GenesisBase:
    """One repository, its configuration and its store, opened lazily."""

    def __init__(self, repo_path: str | Path | None = None, *, use_rag: bool = False,
                 rag: ImpactRAG | None = None, engine: str | Engine | None = None,
                 scope: str | None = None, keep_corpus: bool = False):
        self.repo_path = Path(repo_path) if repo_path is not None else None
        self.use_rag = use_rag
        self.rag = rag
        self.engine = engine
        self.scope = scope
        self._ctx: Context | None = None
        self._repo: Repo | None = None
        self._config: Config | None = None
        # a long-lived caller (genesis mcp) keeps the impact corpus while the store is unchanged
        self.keep_corpus = keep_corpus
        self._kept: tuple[Any, Any] | None = None
        self._empty: sqlite3.Connection | None = None

    # -- plumbing ---------------------------------------------------------
    @property
    def repo(self) -> Repo:
        """The repository (found on first use; the store is not opened)."""
        if self._repo is None:
            from genesis_git.git.repo import find_repo

            self._repo = find_repo(self.repo_path)
        return self._repo

    @property
    def config(self) -> Config:
        """The repository's configuration, validated (read on first use)."""
        if self._config is None:
            from genesis_git.config.settings import load_config

            self._config = load_config(self.repo.root)
        return self._config

    @property
    def store_dir(self) -> Path:
        """The store's folder (``$GENESIS_HOME``, else ``<git common dir>/genesis``)."""
        from genesis_git.store.connect import store_dir

        return store_dir(self.repo)

    @property
    def store_path(self) -> Path:
        """The store's SQLite file."""
        from genesis_git.store.connect import DB_NAME

        return self.store_dir / DB_NAME

    @property
    def log_path(self) -> Path:
        """The log of errors that are not the user's (their tracebacks)."""
        from genesis_git.store.connect import LOG_NAME

        return self.store_dir / LOG_NAME

    @property
    def context(self) -> Context:
        """The repository, its configuration and the open store (opened on first use)."""
        if self._ctx is None:
            from genesis_git.index.session import Context
            from genesis_git.store.connect import connect, store_path
            from genesis_git.stories.journal import replay_journal

            db = store_path(self.repo)
            conn = connect(db)
            replay_journal(conn, db)  # bindings the hooks left while the store was busy
            from genesis_git.stories.ledger.view import refresh_quietly

            refresh_quietly(conn, self.repo)  # a ledger ref that moved (git fetch) updates it
            self._ctx = Context(self.repo, self.config, conn)
        return self._ctx

    @property
    def ledger(self) -> sqlite3.Connection:
        """The store for reading the ledger; on a clone without a store, an empty ledger in
        memory, so that a read creates no store."""
        if self._ctx is None and not self.store_path.exists():
            if self._empty is None:
                from genesis_git.store.connect import connect

                self._empty = connect(":memory:")
            return self._empty
        return self.context.conn

    @property
    def library(self) -> Library:
        """The design library of the repository (plain files; the store is not opened)."""
        library = _part("genesis_git.design.library", "the design library")
        lib: Library = library.open_library(self.repo.root, repo=self.repo, config=self.config)
        return lib

    def close(self) -> None:
        if self._ctx is not None:
            import sys

            kept = sys.modules.get("genesis_git.search.session_index")
            if kept is not None:  # loaded: it may hold this store's session in memory
                kept.forget_connection(self._ctx.conn)
            self._ctx.conn.close()
            self._ctx = None
        if self._empty is not None:
            self._empty.close()
            self._empty = None

    def __enter__(self: _G) -> _G:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

