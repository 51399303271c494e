"""The story ledger's commands of :class:`genesis_git.app.facade.Genesis`: stories, their
rebuild from history, ``genesis sync`` and the organisation's PostgreSQL mirror."""

from __future__ import annotations

from typing import Any

from genesis_git.app.plumbing import GenesisBase, _part
from genesis_git.kernel.errors import GenesisError


class LedgerCommands(GenesisBase):
    """``genesis story …``, ``genesis sync`` and ``genesis ledger mirror``."""

    # -- story ------------------------------------------------------------------
    def story(self, story_id: str, **kwargs: Any) -> Any:
        """The context of a story (its commits, files and artifacts) from the ledger."""
        context = _part("genesis_git.stories.context", "the story ledger")
        kwargs.setdefault("repo", self.repo)
        return context.build_context(self.ledger, story_id, **kwargs)

    def stories(self) -> list[tuple[str, str, list[str]]]:
        """``(story_id, text, paths)`` of every story of the ledger."""
        ledger = _part("genesis_git.stories.tables", "the story ledger")
        return list(ledger.story_texts(self.context.conn))

    def story_list(self, status: str | None = None) -> list[dict[str, Any]]:
        """The stories (with this status), most recently updated first."""
        ledger = _part("genesis_git.stories.tables", "the story ledger")
        rows: list[dict[str, Any]] = ledger.list_records(self.ledger, status)
        return rows

    def story_show(self, story_id: str) -> dict[str, Any]:
        """A story's record, its counts and its links."""
        ledger = _part("genesis_git.stories.tables", "the story ledger")
        rec: dict[str, Any] = ledger.show_record(self.ledger, story_id)
        return rec

    def story_set(self, story_id: str, *, status: str | None = None,
                  title: str | None = None) -> tuple[dict[str, Any], bool]:
        """Set a story's status and/or title: ``(record, created)``."""
        ledger = _part("genesis_git.stories.tables", "the story ledger")
        from genesis_git.stories.artifacts import author

        rec, created = ledger.set_record(self.context.conn, self.repo.project_id, story_id,
                                         status=status, title=title, by=author(self.repo))
        return rec, bool(created)

    def story_link(self, story_id: str, link_type: str, target: str,
                   description: str | None = None) -> dict[str, Any]:
        """Link a story to a story, ADR, ticket, PR, commit (bound with its files), doc or URL."""
        binding = _part("genesis_git.stories.binding", "the story ledger")
        res: dict[str, Any] = binding.link_story(self.context.conn, self.repo, self.config,
                                                 story_id, link_type, target, description)
        return res

    def story_bind(self, story_id: str, session_id: str | None = None) -> dict[str, Any]:
        """Bind pending notes (of one session, default: every session of this worktree) and
        the session's ``--doc`` to an existing story, by hand."""
        binding = _part("genesis_git.stories.binding", "the story ledger")
        res: dict[str, Any] = binding.bind_notes(self.context.conn, self.repo, story_id,
                                                 session_id)
        return res

    def story_rebuild(self, *, prune: bool = False, from_scratch: bool = False
                      ) -> dict[str, Any]:
        """Re-derive stories, commit links and changed files from ``git log`` (idempotent).

        ``from_scratch`` first moves the store aside (a damaged one, say) and starts a new
        one with the ledger rows that can still be read."""
        rebuild = _part("genesis_git.stories.rebuild", "the story ledger")
        aside = None
        salvaged: dict[str, int] = {}
        if from_scratch:
            self.close()
            aside = rebuild.move_aside(self.store_path)
            if aside is not None:
                salvaged = rebuild.salvage(self.context.conn, aside)
        res: dict[str, Any] = rebuild.rebuild(self.context.conn, self.repo, self.config,
                                              prune=prune)
        if from_scratch:
            res["moved_aside"] = str(aside) if aside else None
            res["salvaged"] = salvaged
        return res

    # -- the organisation's mirror (PostgreSQL) --------------------------------
    def mirror(self, url: str | None = None) -> dict[str, Any]:
        """Write this repository's ledger records into the PostgreSQL mirror.

        Only git and the configuration are read: the local store is not opened.
        """
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.mirror(self.repo, self.config, url)
        return result

    def mirror_after_sync(self) -> tuple[dict[str, Any] | None, GenesisError | None]:
        """What ``genesis sync`` does after syncing: mirror when a mirror is configured.

        ``(result, None)``; ``(None, None)`` without a mirror; ``({"error": …}, error)``
        when the mirror failed, so that the sync, which did succeed, is still reported.
        """
        if not self.config.str("ledger.mirror").strip():
            return None, None
        try:
            return self.mirror(), None
        except GenesisError as exc:
            return {"error": str(exc), "exit_code": int(exc.exit_code)}, exc

    def org_stories(self, *, url: str | None = None, status: str | None = None,
                    project: str | None = None) -> dict[str, Any]:
        """The stories of every repository in the mirror, each with its projects."""
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.org_stories(service.config_here(self.repo_path), url,
                                                     status=status, project=project)
        return result

    def org_story(self, story_id: str, *, url: str | None = None) -> dict[str, Any]:
        """A story's context from every repository in the mirror, each item with its project."""
        service = _part("genesis_git.mirror.service", "the PostgreSQL mirror")
        result: dict[str, Any] = service.org_story(service.config_here(self.repo_path),
                                                   story_id, url)
        return result

    def sync(self, remote: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``genesis sync``: fetch, merge and push the story ledger, update the view."""
        from genesis_git.store.connect import store_path
        from genesis_git.stories.catchup import bind_new_commits
        from genesis_git.stories.ledger.gitref import GitError
        from genesis_git.stories.ledger.sync import sync

        ctx = self.context
        kwargs.setdefault("bind", bind_new_commits)
        try:
            return sync(ctx.conn, ctx.repo, ctx.config, remote,
                        store_dir=store_path(ctx.repo).parent, **kwargs)
        except GitError as exc:
            raise GenesisError(f"genesis sync: {exc}",
                               hint="nothing was lost; run `genesis sync` again") from None

