"""``g.sessions``: the worktree's session (its index of the working tree) and its notes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genesis_git.app.workspace import Workspace
    from genesis_git.index.indexer import IndexReport, Progress

Announce = Callable[[str], None]


class Sessions:
    """``genesis session …`` and ``genesis session note / notes / retract``."""

    def __init__(self, workspace: Workspace):
        self._ws = workspace

    def current(self, *, refresh: bool = True) -> str:
        """The active session id of the worktree: refreshed, or started when there is none."""
        from genesis_git.index.session import ensure_session

        return ensure_session(self._ws.caught_up(), refresh=refresh)

    def start(self, *, name: str | None = None, doc: str | None = None, new: bool = False,
              progress: Progress | None = None, prebuild: bool = True) -> IndexReport:
        """Start (or resume) the worktree's session and index the working tree into it.

        With ``prebuild``, a large session's search base is built by a background process.
        """
        from genesis_git.index.session import start

        ctx = self._ws.caught_up()
        report = start(ctx, name=name, doc=doc, new=new, progress=progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def refresh(self, *, progress: Progress | None = None, prebuild: bool = True) -> IndexReport:
        """Map only what changed since the last scan into the active session."""
        from genesis_git.index.session import refresh

        report = refresh(self._ws.caught_up(), progress)
        if prebuild:
            self._prebuild(report.session)
        return report

    def _prebuild(self, session_id: str) -> None:
        from genesis_git.search.base.prebuild import maybe_spawn

        maybe_spawn(self._ws.caught_up(), session_id)

    def active(self) -> dict[str, Any] | None:
        """The summary of the worktree's active session, or ``None`` (nothing is started)."""
        from genesis_git.index.session import active_session, summary

        ctx = self._ws.caught_up()
        row = active_session(ctx.conn, ctx.repo)
        return None if row is None else summary(ctx, row)

    def all(self, *, all_worktrees: bool = False) -> list[dict[str, Any]]:
        """The sessions of this worktree (or of every worktree), newest first."""
        from genesis_git.index.session import list_sessions

        return list_sessions(self._ws.caught_up(), all_worktrees)

    def summary(self, session_id: str | None = None) -> dict[str, Any]:
        """The summary of a session (files, chunks, types, artifacts); by default of the active
        one, started when there is none."""
        from genesis_git.index.session import ensure_session, get, summary

        ctx = self._ws.caught_up()
        if session_id is None:
            session_id = ensure_session(ctx, refresh=False)
        return summary(ctx, get(ctx, session_id))

    def end(self, session_id: str | None = None) -> str:
        """End a session (default: the active one); its notes stay in the ledger."""
        from genesis_git.index.session import end

        return end(self._ws.caught_up(), session_id)

    def pending_notes(self, session_id: str) -> int:
        """Notes of the session that no story holds yet."""
        from genesis_git.index.session import pending_notes

        return pending_notes(self._ws.caught_up(), session_id)

    def note(self, text: str, *, role: str = "note", path: str | None = None,
             section: str | None = None, private: bool = False, allow_secret: bool = False,
             announce: Announce | None = None) -> dict[str, Any]:
        """Record a note in the session; the next commit with a story id binds it.  A
        ``private`` note stays in this clone (never in the shared ledger); so does a note
        that holds a secret, unless ``allow_secret`` (its ``secret`` says which rule)."""
        from genesis_git.stories.artifacts import add_note, check_role

        check_role(role)  # before a session is started for nothing
        return add_note(self._ws.caught_up(), text, role=role, path=path, section=section,
                        private=private, allow_secret=allow_secret, announce=announce)

    def retract(self, note_id: str) -> dict[str, Any]:
        """Take a note of this clone back (``12``, ``#12``, ``note:<record id>``): it leaves its
        session and every story; ``genesis sync`` takes the retraction to the team."""
        from genesis_git.stories.artifacts import retract_note

        return retract_note(self._ws.caught_up().conn, note_id)

    def notes(self, session_id: str | None = None) -> dict[str, Any]:
        """The notes of a session (default: the active one) and the stories they are bound to."""
        from genesis_git.stories.artifacts import list_artifacts

        ctx = self._ws.caught_up()
        return list_artifacts(ctx.conn, ctx.repo, session_id)
