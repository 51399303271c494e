"""``g.stories``: the story ledger — stories, their context, links, bindings, the rebuild
from history and ``genesis sync``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace


class Stories:
    """``genesis story …`` and ``genesis sync``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def context(self, story_id: str, *, with_code: int = 0) -> dict[str, Any]:
        """The context of a story (its commits, files and artifacts) from the ledger; with
        ``with_code``, the most relevant chunks of this repository's index."""
        from genesis_git.stories.context import build_context, search_code

        ws = self._ws

        def code_search(query: str, k: int) -> tuple[list[dict[str, Any]], list[str]]:
            return search_code(ws.caught_up(), query, k)  # this repository's index

        return build_context(ws.ledger(), story_id, with_code=with_code, repo=ws.repo,
                             code_search=code_search)

    def texts(self) -> list[tuple[str, str, list[str]]]:
        """``(story_id, text, paths)`` of every story of the ledger."""
        from genesis_git.stories.tables import story_texts

        return list(story_texts(self._ws.caught_up().conn))

    def all(self, status: str | None = None) -> list[dict[str, Any]]:
        """The stories (with this status), most recently updated first."""
        from genesis_git.stories.tables import list_records

        return list_records(self._ws.ledger(), status)

    def show(self, story_id: str) -> dict[str, Any]:
        """A story's record, its counts and its links."""
        from genesis_git.stories.tables import show_record

        return show_record(self._ws.ledger(), story_id)

    def set(self, story_id: str, *, status: str | None = None,
            title: str | None = None) -> tuple[dict[str, Any], bool]:
        """Set a story's status and/or title: ``(record, created)``."""
        from genesis_git.stories.artifacts import author
        from genesis_git.stories.binding import project_id
        from genesis_git.stories.tables import set_record

        ctx = self._ws.caught_up()
        rec, created = set_record(ctx.conn, project_id(ctx.conn, ctx.repo), story_id, status=status,
                                  title=title, by=author(ctx.repo))
        return rec, bool(created)

    def link(self, story_id: str, link_type: str, target: str,
             description: str | None = None) -> dict[str, Any]:
        """Link a story to a story, ADR, ticket, PR, commit (bound with its files), doc or URL."""
        from genesis_git.stories.binding import link_story

        ctx = self._ws.caught_up()
        return link_story(ctx.conn, ctx.repo, ctx.config, story_id, link_type, target,
                          description)

    def bind(self, story_id: str, session_id: str | None = None) -> dict[str, Any]:
        """Bind pending notes (of one session, default: every session of this worktree) and
        the session's ``--doc`` to an existing story, by hand."""
        from genesis_git.stories.binding import bind_notes

        ctx = self._ws.caught_up()
        return bind_notes(ctx.conn, ctx.repo, story_id, session_id)

    def rebuild(self, *, prune: bool = False, from_scratch: bool = False) -> dict[str, Any]:
        """Re-derive stories, commit links and changed files from ``git log`` (idempotent).

        ``from_scratch`` first moves the store aside (a damaged one, say) and starts a new
        one with the ledger rows that can still be read."""
        from genesis_git.stories import rebuild

        ws = self._ws
        aside = None
        salvaged: dict[str, int] = {}
        if from_scratch:
            ws.close()
            aside = rebuild.move_aside(ws.store_path)
            if aside is not None:
                salvaged = rebuild.salvage(ws.context.conn, aside)  # before the view's refresh
        ctx = ws.caught_up()
        res = rebuild.rebuild(ctx.conn, ctx.repo, ctx.config, prune=prune)
        if from_scratch:
            res["moved_aside"] = str(aside) if aside else None
            res["salvaged"] = salvaged
        return res

    def repair_ledger(self, remote: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``genesis ledger repair``: a valid ledger ref again, from the store's records."""
        from genesis_git.stories.ledger.repair import repair

        ctx = self._ws.caught_up()
        return repair(ctx.conn, ctx.repo, ctx.config, remote,
                      store_dir=self._ws.store_path.parent, **kwargs)

    def sync(self, remote: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``genesis sync``: fetch, merge and push the story ledger, update the view."""
        from genesis_git.stories.catchup import bind_new_commits
        from genesis_git.stories.ledger.gitref import GitError
        from genesis_git.stories.ledger.sync import sync

        ctx = self._ws.caught_up()
        kwargs.setdefault("bind", bind_new_commits)
        try:
            return sync(ctx.conn, ctx.repo, ctx.config, remote,
                        store_dir=self._ws.store_path.parent, **kwargs)
        except GitError as exc:
            raise GenesisError(f"genesis sync: {exc}",
                               hint="nothing was lost; run `genesis sync` again") from None
