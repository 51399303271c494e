"""The story and session tools, and the reading of the history's story ids on first use.

A repository whose commits name stories (``STORY-12: …``) but whose store never
read them (its hooks came later, or the clone is new) would answer an empty
ledger.  So the first story call of a repository starts reading the history in
the background (what ``genesis story rebuild`` does, through its own
connection), waits a moment for it, and answers; while it is still reading,
the answer's ``history`` says so, and a later call has the stories.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from genesis_git.kernel.vocabulary import NOTE_ROLES, STORY_STATUSES
from genesis_git.mcp.common import (
    STORE_ONLY,
    WRITES,
    WRITES_STORE,
    call,
    choice,
    enum,
    repo_path,
    tool_words,
)
from genesis_git.mcp.tools_search import Cursor, Repo

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from genesis_git.app.facade import Genesis
    from genesis_git.mcp.server import GenesisTools

WAIT_SECONDS = 2.0  # how long a story call waits for the history before it answers


class History:
    """The background read of each repository's story commits, once per server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.state: dict[Path, dict[str, Any]] = {}

    def ensure(self, g: Genesis, wait: float | None = None) -> dict[str, Any]:
        """The status of the read of ``g``'s history, started now on the first call; waits for
        it at most ``wait`` seconds (default :data:`WAIT_SECONDS`) from its start."""
        wait = WAIT_SECONDS if wait is None else wait
        root = g.workspace.repo.root
        with self._lock:
            state = self.state.get(root)
            if state is None:
                state = self.state[root] = {"status": "reading", "started": time.time()}
                thread = threading.Thread(target=self._read, args=(root, state),
                                          name="genesis-history", daemon=True)
                state["thread"] = thread
                thread.start()
        thread = state["thread"]
        thread.join(max(0.0, wait - (time.time() - state["started"])))
        return {k: v for k, v in state.items() if k not in ("thread", "started")}

    @staticmethod
    def _read(root: Path, state: dict[str, Any]) -> None:
        from genesis_git.app.facade import Genesis

        try:
            with Genesis(root) as g:
                done = g.stories.rebuild()
            found = done.get("stories")
            state["stories"] = len(found) if isinstance(found, list) else int(found or 0)
            state["status"] = "done"
        except Exception as exc:  # noqa: BLE001 - the answer says it; the ledger stays as it was
            state["error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            state["status"] = "failed"


def with_history(data: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    """``data`` as the command prints it once the history is read; else with ``history``."""
    if status["status"] == "done":
        return data
    return {**data, "history": {k: v for k, v in status.items() if k in ("status", "error")}}


def history_line(data: dict[str, Any]) -> str:
    history = data.get("history")
    if not history:
        return ""
    if history["status"] == "reading":
        return ("\nstill reading the history's story commits in the background; call again "
                "shortly for the stories they name")
    return f"\nreading the history's story commits failed: {history.get('error')}"


STORY_CONTEXT = """Resume work on a story (an id such as STORY-12 that commit subjects
name): its record, commits, net changed files, the notes and decisions bound to it, its
source document and links. with_code adds the most relevant code passages of today's tree.
Writes genesis's store only: the first story call reads the history's story commits into
it; the working tree and git are never changed."""

STORY_LIST = """List the stories of the ledger (ids such as STORY-12 that commit subjects
name), most recently updated first, with status, title and counts. Writes genesis's store
only: the first story call reads the history's story commits into it; the working tree and
git are never changed."""

SESSION_NOTE = """Record what you decided, found risky or analysed while working, so that it
outlives this conversation: the next commit whose message names a story binds the note to
that story, for story_context to return later. Writes genesis's store only. A note that looks
like it holds a secret (token, key, password) is kept private, unless allow_secret."""


def register(server: MCPServer[Any], tools: GenesisTools) -> None:
    history = History()

    @server.tool(annotations=STORE_ONLY, description=STORY_CONTEXT)
    def story_context(
        story_id: Annotated[str, Field(description="The story's id, e.g. STORY-12.")],
        with_code: Annotated[int, Field(
            description="Also the K most relevant code passages of the current tree (0: "
                        "none).", ge=0, le=50)] = 0,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.kernel.errors import GenesisError
            from genesis_git.render.stories import context_text

            status = history.ensure(g)
            try:
                data = g.stories.context(story_id, with_code=with_code)
            except GenesisError as exc:
                if status["status"] == "reading":
                    exc.hint = "the history's story commits are still being read: call again"
                raise
            if isinstance(data.get("notes"), list):  # genesis's own remarks, in the tools' words
                data = {**data, "notes": [tool_words(n) if isinstance(n, str) else n
                                          for n in data["notes"]]}
            return with_history(data, status), lambda d: "\n".join(
                [*d.get("notes", []), context_text(d)]) + history_line(d)
        return call(tools, repo, "story_context", {"story_id": story_id, "with_code": with_code},
                    None, cursor, produce)

    @server.tool(annotations=STORE_ONLY, description=STORY_LIST)
    def story_list(
        status: Annotated[str | None, Field(description="Only stories in this state.",
                                            json_schema_extra=enum(*STORY_STATUSES))] = None,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.stories import list_short

            choice("status", status, STORY_STATUSES)
            read = history.ensure(g)
            data = with_history({"stories": g.stories.all(status)}, read)

            def render(d: dict[str, Any]) -> str:
                if not d["stories"] and read["status"] == "done":
                    return "no stories: no commit names a story id (e.g. 'STORY-12: …')"
                return list_short(d) + history_line(d)
            return data, render
        return call(tools, repo, "story_list", {"status": status}, "stories", cursor, produce)

    @server.tool(annotations=STORE_ONLY, description=(
        "The worktree's current session: files and chunks indexed, its requirement document, "
        "notes not yet bound to a story (active is null without a session). " + WRITES_STORE))
    def session_status(repo: Repo = None) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.sessions import status_short

            return {"active": g.sessions.active()}, lambda d: status_short(d["active"])
        return call(tools, repo, "session_status", {}, None, None, produce)

    @server.tool(annotations=WRITES, description=(
        "Start (or resume) the worktree's session and index the working tree; give doc, the "
        "requirement document you work from, so the next story commit binds it. Writes "
        "genesis's store only."))
    def session_start(
        doc: Annotated[str | None, Field(
            description="The requirement document (relative to the repository's root).")]
                        = None,
        name: Annotated[str | None, Field(description="A name for the session.")] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.sessions import report_short

            data = g.sessions.start(doc=repo_path(g, "doc", doc), name=name).as_dict()
            return data, report_short
        return call(tools, repo, "session_start", {"doc": doc, "name": name}, None, None,
                    produce)

    @server.tool(annotations=WRITES, description=SESSION_NOTE)
    def session_note(
        text: Annotated[str, Field(description="The note itself.")],
        role: Annotated[str, Field(
            description="What it is: decision, risk, analysis, note, test_model (how it is "
                        "tested) or doc_change (a change the docs need).",
            json_schema_extra=enum(*NOTE_ROLES))] = "note",
        path: Annotated[str | None, Field(
            description="The file it is about, relative to the repository's root.")] = None,
        section: Annotated[str | None, Field(
            description="The part of that file: a heading or a symbol.")] = None,
        allow_secret: Annotated[bool, Field(
            description="Share the note even though it looks like it holds a secret.")]
                        = False,
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.sessions import noted_short

            choice("role", role, NOTE_ROLES)
            item = g.sessions.note(text, role=role, path=repo_path(g, "path", path),
                                   section=section, allow_secret=allow_secret)
            return item, noted_short
        return call(tools, repo, "session_note", {"text": text, "role": role, "path": path},
                    None, None, produce)
