"""The workspace: one repository, its settings and its store.

    ws = Workspace.open("path/to/repo")
    ws.repo          # found on first use
    ws.config        # read and checked on first use
    ws.context       # the store, opened (and created) on first use: nothing else happens
    ws.caught_up()   # the store after applying what the hooks left (the journal) and a
                     # ledger ref that moved (git fetch): what a command reads and writes

Opening the store has no side effect of its own; catching up with the hooks is the
named step :meth:`Workspace.caught_up`, which the services of
:class:`~genesis_git.app.facade.Genesis` call wherever a command reads or writes the
store.  Each part is read on first use, so that a command that needs only the
repository (``hooks install``) or only the files (the design library) never opens
the store, and a read of the ledger on a clone without a store creates none.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    from genesis_git.config.settings import Config
    from genesis_git.design.library import Library
    from genesis_git.git.repo import Repo
    from genesis_git.index.session import Context


class Workspace:
    """One repository, its configuration and its store, each read on first use."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self._repo: Repo | None = None
        self._config: Config | None = None
        self._ctx: Context | None = None
        self._caught_up = False
        self._empty: sqlite3.Connection | None = None

    @classmethod
    def open(cls, path: str | Path | None = None) -> Workspace:
        """The workspace of the repository at ``path`` (default: the working directory)."""
        return cls(path)

    # -- the repository and its settings ------------------------------------------
    @property
    def repo(self) -> Repo:
        """The repository (found on first use; the store is not opened)."""
        if self._repo is None:
            from genesis_git.git.repo import find_repo

            self._repo = find_repo(self.path)
        return self._repo

    @property
    def config(self) -> Config:
        """The repository's configuration, validated (read on first use)."""
        if self._config is None:
            from genesis_git.config.settings import load_config

            self._config = load_config(self.repo.root)
        return self._config

    @property
    def library(self) -> Library:
        """The design library of the repository (plain files; the store is not opened)."""
        from genesis_git.design.library import open_library

        return open_library(self.repo.root, repo=self.repo, config=self.config)

    # -- the store --------------------------------------------------------------------
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
    def is_open(self) -> bool:
        return self._ctx is not None

    @property
    def context(self) -> Context:
        """The repository, its configuration and the store, opened on first use (and created
        if missing, with its migrations); nothing else is done."""
        if self._ctx is None:
            from genesis_git.index.session import Context
            from genesis_git.store.connect import connect

            self._ctx = Context(self.repo, self.config, connect(self.store_path))
            self._caught_up = False
        return self._ctx

    def caught_up(self) -> Context:
        """:attr:`context`, once per opening brought up to date: the bindings the hooks left
        in the journal while the store was busy are applied, and a shared ledger ref that
        moved (``git fetch``) updates the ledger's view (a failure there is one warning)."""
        ctx = self.context
        if not self._caught_up:
            from genesis_git.stories.journal import replay_journal

            replay_journal(ctx.conn, self.store_path)
            if not self._ledger_unmoved(ctx.conn):
                from genesis_git.stories.ledger.view import refresh_quietly

                refresh_quietly(ctx.conn, self.repo)
            self._caught_up = True
        return ctx

    def _ledger_unmoved(self, conn: sqlite3.Connection) -> bool:
        """No ledger ref moved since the view read them (the refresh and its imports
        are then left out); a store that cannot say leaves it to the refresh."""
        import sqlite3

        from genesis_git.stories.ledger.signature import unmoved

        try:
            return unmoved(conn, self.repo.common_dir)
        except (sqlite3.Error, OSError):
            return False

    def ledger(self) -> sqlite3.Connection:
        """The store for reading the ledger (caught up); on a clone without a store, an empty
        ledger in memory, so that a read creates no store."""
        if self._ctx is None and not self.store_path.exists():
            if self._empty is None:
                from genesis_git.store.connect import connect

                self._empty = connect(":memory:")
            return self._empty
        return self.caught_up().conn

    def close(self) -> None:
        """Close the store (the repository and settings stay known); it reopens on next use."""
        if self._ctx is not None:
            import sys

            kept = sys.modules.get("genesis_git.search.session_index")
            if kept is not None:  # loaded: it may hold this store's session in memory
                kept.forget_connection(self._ctx.conn)
            self._ctx.conn.close()
            self._ctx = None
            self._caught_up = False
        if self._empty is not None:
            self._empty.close()
            self._empty = None
