"""``g.design``: the design reference library of the repository (plain files; the store is
never opened)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.design.library import Library


class Design:
    """``genesis design search`` and ``genesis design brief``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    @property
    def library(self) -> Library:
        return self._ws.library

    def search(self, query: str, top: int | None = None, *, strict: bool = True
               ) -> dict[str, Any]:
        """Search the library.  ``strict=False`` gives the result as ``genesis design search
        --json`` prints it: ``available`` says whether the library could be read, and an
        unreadable one is a warning instead of an error."""
        from genesis_git.design.library import LibraryUnavailable
        from genesis_git.design.search import search

        lib = self.library
        if strict:
            return search(lib, query, top)
        try:
            result = search(lib, query, top)
            result["available"] = True
        except LibraryUnavailable as exc:
            result = {"query": query, "ranker": "lexical", "reranked": False, "terms": [],
                      "results": [], "warnings": [f"design library unavailable: {exc}"],
                      "library": lib.display(lib.root), "available": False}
        return result

    def brief(self, task: str | None, *, out: str | None = None,
              request: str | None = None) -> dict[str, Any]:
        """Write a brief of 3-5 cards and append its inspiration record (``design brief``)."""
        from genesis_git.design.brief import brief

        return brief(self.library, task, out=out, request=request)
