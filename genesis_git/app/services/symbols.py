"""``g.symbols``: where a name is defined, who refers to it, what a file contains.

The definitions come from the blobs' facts (:mod:`genesis_git.search.symbols`),
read once per state of the session and kept while the store is unchanged, so a
long-lived caller (``genesis mcp``) answers a warm lookup from memory after the
refresh every door does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from genesis_git.app.workspace import Workspace
    from genesis_git.index.session import Context
    from genesis_git.search.inherit import Lineage
    from genesis_git.search.symbols import SymbolIndex


class Symbols:
    """``genesis symbols`` (and the MCP tool ``symbols``)."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace
        self._kept: tuple[tuple[str, int, int], SymbolIndex] | None = None
        self._lineage: Lineage | None = None  # the classes' ancestry, while _kept holds

    def _index(self, refresh: bool) -> tuple[Context, str, SymbolIndex]:
        from genesis_git.impact import facts
        from genesis_git.index.session import ensure_session
        from genesis_git.search.symbols import SymbolIndex
        from genesis_git.store import sessionmap

        ctx = self._ws.caught_up()
        sid = ensure_session(ctx, refresh=refresh)
        conn = ctx.conn
        key = (sid, int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if self._kept is not None and self._kept[0] == key:
            return ctx, sid, self._kept[1]
        self._kept = None
        self._lineage = None
        rows = list(sessionmap.paths_and_blobs(conn, sid))
        loaded = facts.load(conn, [b for _, _, b in rows if b is not None])
        index = SymbolIndex({p: loaded.get(b) if b is not None else None for p, _, b in rows})
        key = (sid, int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        self._kept = (key, index)
        return ctx, sid, index

    def lookup(self, name: str, *, refs: bool = False, paths: tuple[str, ...] = (),
               refresh: bool = True) -> dict[str, Any]:
        """The definitions of ``name`` and, with ``refs``, the lines that refer to it."""
        from genesis_git.kernel.errors import UsageError
        from genesis_git.search.symbols import references

        if not name.strip():
            raise UsageError("empty name", hint="name a class, function, method or table")
        from genesis_git.search.identifiers import written_name
        from genesis_git.search.symbols import assignments

        asked = name
        # as search reads a name written as code: `Matrix.det()`, `def order`, `S.`, .det
        name = written_name(name) or name.strip()
        ctx, sid, index = self._index(refresh)
        defined = index.define(name, lambda n: assignments(ctx.repo.root, n,
                                                           index.paths),
                               self._lineage_of(ctx.repo.root, ctx.conn, sid))
        out: dict[str, Any] = {"name": asked.strip(), "session": sid,
                               "definitions": [d.as_dict() for d in defined]}
        if refs:
            from genesis_git.providers.embedders import embedder_id, get_embedder
            from genesis_git.search.session_index import session_index

            idx = session_index(ctx.conn, sid, embedder_id(get_embedder(ctx.config)))
            found = references(ctx.conn, ctx.repo.root, sid, name, defined, paths=paths,
                               idx=idx)
            out["references"] = [
                {**m.as_dict(), "location": f"{m.path}:{m.line}"} for m in found]
        return out

    def _lineage_of(self, root: Path, conn: sqlite3.Connection, sid: str) -> Lineage:
        from genesis_git.search.classlines import session_lineage

        if self._lineage is None:
            self._lineage = session_lineage(conn, root, sid)
        return self._lineage

    def outline(self, path: str, *, refresh: bool = True) -> dict[str, Any]:
        """The definitions of one file of the session, in line order."""
        from genesis_git.kernel.errors import NotFound

        _, sid, index = self._index(refresh)
        found = index.outline(path)
        if found is None:
            raise NotFound(f"{path}: not a file of this session",
                           hint="give its path relative to the repository's root")
        return {"path": path, "session": sid, "definitions": [d.as_dict() for d in found]}
