"""``genesis mcp``: genesis's tools for coding agents, over the Model Context Protocol on stdio.

Built on the official Python SDK (``mcp`` 2.x, :class:`mcp.server.mcpserver.MCPServer`),
an optional extra (``mcp``; see :mod:`genesis_git.kernel.extras`).  Every tool calls the
same core functions as the command line, through :class:`genesis_git.app.facade.Genesis`,
and returns the JSON that the command's ``--json`` prints as structured
content, with a short text rendering beside it.

The server keeps what it loaded warm between calls, per repository: the open
store, the session's search base, the impact corpus.  Before each call it does
the refresh the CLI does (answered from the session's state key when git
reports nothing new), so an edit saved a second ago is found.  At most
``mcp.max_repos`` repositories are kept; the least recently used is closed.

Calls run one at a time.  A bad argument, a path outside a repository or an
unknown story is a tool error of one line; the server carries on.  Nothing
but protocol messages goes to stdout (the SDK points file descriptor 1 at
stderr while it serves, so a child process cannot write into the protocol
either); warnings and the tracebacks of bugs go to the store's ``genesis.log``, as the
command line's do (:func:`genesis_git.kernel.errors.handle`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from genesis_git import __version__
from genesis_git.app.workspaces import Workspaces, max_repos
from genesis_git.render.lines import one_line

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

INSTRUCTIONS = """\
genesis indexes a git working tree (uncommitted edits included) and answers
"where is this?" and "what does this change touch?" with explained scores.
It also keeps a story ledger (notes and decisions bound to STORY-12-style ids by
commits) and a library of design reference cards. Everything runs locally.

When to call which tool:
- impact: BEFORE editing for a requirement, an issue or a bug report. Pass the
  requirement text (a pasted issue is fine); you get the files, symbols and
  fields it affects, ranked, each with evidence lines and the reasons of its score.
- search: to find a symbol, a passage, a config key or a doc section. Use
  files=true for one line per file; type/path/component/owner narrow it.
- story_context: to resume work on a story (e.g. STORY-12): its commits, net
  changed files, notes, decisions and links. story_list lists the stories.
- session_note: to record a decision, a risk or an analysis while you work
  (role=decision|risk|analysis|note|test_model|doc_change); the next commit
  whose message names a story binds it to that story.
- session_status / session_start: the worktree's session (start it with
  doc=<path of the requirement document> to bind that document too).
- design_search / design_brief: design reference cards (spacing, contrast,
  type, dark mode, touch targets); design_brief also writes tasks/design-brief.md,
  and is an error (nothing written) when the library has no card to offer.

Every tool takes an optional repo: the absolute path of the repository (or a
folder inside it); without it, the server's working directory is used. Search
and impact see the working tree as it is now. A very long query is read in
part (its first 32,768 characters, its 128 weightiest terms) and the result says so.
Results carry the same JSON as the genesis command's --json (structured content).
"""

Repo = Annotated[str | None, Field(
    description="Absolute path of the repository (or a folder inside it); default: the "
                "server's working directory.")]


class GenesisTools:
    """The tools, over :class:`Workspaces`; every call runs under one lock."""

    def __init__(self, workspaces: Workspaces):
        self.workspaces = workspaces
        self._lock = threading.Lock()
        self.calls = 0

    def run(self, repo: str | None, work: Callable[[Genesis], tuple[dict[str, Any], str]]
            ) -> CallToolResult:
        with self._lock:
            self.calls += 1
            g: Genesis | None = None
            try:
                g = self.workspaces.get(repo)
                data, text = work(g)
            except Exception as exc:  # a bug must not take the server down
                return _error(_failure(exc, g, work))
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=data)


def _failure(exc: Exception, g: Genesis | None, work: Callable[..., Any]) -> str:
    """The server's side of the one error gate (:func:`genesis_git.kernel.errors.handle`):
    the tool error's one line; a bug's traceback goes to the repository's log (else the user
    cache's), never to stderr."""
    from genesis_git.kernel.errors import handle
    from genesis_git.kernel.log import LOG_ROTATE_BYTES, log_entry, user_cache_log
    from genesis_git.kernel.logfile import append_log

    tool = work.__qualname__.split(".<locals>.")[-2:-1] or ["?"]

    def record(line: str, detail: str) -> object:
        logs: list[str | os.PathLike[str]] = [*([g.workspace.log_path] if g is not None else []),
                                              user_cache_log()]
        entry = log_entry(["genesis", "mcp", *tool], None, detail, __version__)
        return append_log(logs, entry, rotate_at=LOG_ROTATE_BYTES)

    failure = handle(exc, record=record)
    return f"internal error: {failure.message}" if failure.internal else failure.message


def in_repo(g: Genesis, path: str | None) -> str | None:
    """A path an agent gives, taken relative to the repository's root (not the server's cwd)."""
    if path is None or Path(path).is_absolute():
        return path
    return str(g.workspace.repo.root / path)


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))],
                          is_error=True)


# -- the server ---------------------------------------------------------------------------

def build_server(workspaces: Workspaces | None = None) -> tuple[MCPServer[Any], GenesisTools]:
    """The MCP server with genesis's tools (not started)."""
    tools = GenesisTools(workspaces or Workspaces())
    server: MCPServer[Any] = MCPServer("genesis", title="genesis", version=__version__,
                                       instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @server.tool(annotations=read_only)
    def search(
        query: Annotated[str, Field(description="What to look for: words, identifiers, Chinese, "
                                                "or a pasted error message.")],
        k: Annotated[int | None, Field(description="Results (default search.k, 10); with "
                                                   "files, files.", ge=1, le=500)] = None,
        type: Annotated[list[str] | None, Field(
            description="Only these artifact types: REQ, ARCH, API, DB, UI, CODE, OTHER.")] = None,
        path: Annotated[list[str] | None, Field(
            description="Only paths matching one of these globs, e.g. 'src/**'.")] = None,
        component: Annotated[str | None, Field(description="Only this system component.")] = None,
        owner: Annotated[str | None, Field(description="Only files this CODEOWNERS owner "
                                                       "owns, e.g. @team-db.")] = None,
        max_staleness: Annotated[float | None, Field(
            description="Only files with a staleness score at most this (0 new .. 1 old).")] = None,
        files: Annotated[bool, Field(description="One result per file, its best chunks "
                                                 "listed under it.")] = False,
        mode: Annotated[str | None, Field(description="hybrid, lexical or vector "
                                                      "(default search.mode).")] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        """Search the working tree as it is now (BM25 over identifiers, Chinese bigrams,
        synonyms and paths, fused with vectors). Same JSON as `genesis search --json`."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.search import summary, to_json

            options = g.search.options(k=k, mode=mode, types=tuple(type or ()),
                                       paths=tuple(path or ()), component=component,
                                       owner=owner, max_staleness=max_staleness, files=files)
            result = g.search.run(query, options)
            data = to_json(result, files)
            return data, summary(data)
        return tools.run(repo, work)

    @server.tool(annotations=read_only)
    def impact(
        requirement: Annotated[str, Field(description="The requirement, issue or bug report "
                                                      "(a pasted issue is fine).")],
        k: Annotated[int, Field(description="Files (and file impacts) to return.",
                                ge=1, le=200)] = 10,
        history: Annotated[bool, Field(description="Use the git history signals (co-change, "
                                                   "similar commits, churn).")] = True,
        graph: Annotated[bool, Field(description="Use the reference graph (imports, table "
                                                 "columns).")] = True,
        stories: Annotated[bool, Field(description="Use similar stories of the ledger.")] = True,
        repo: Repo = None,
    ) -> CallToolResult:
        """Rank the files, symbols and fields a requirement affects, with evidence lines and
        the reasons of each score. Same JSON as `genesis impact --json`."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            options = g.impact.options(k=k, history=history, graph=graph, stories=stories)
            report = g.impact.run(requirement, options)
            from genesis_git.render.impact import summary

            return report.to_json(), summary(report.result, report.warnings, report.suggestions)
        return tools.run(repo, work)

    @server.tool(annotations=read_only)
    def story_context(
        story_id: Annotated[str, Field(description="A story id, e.g. STORY-12.")],
        with_code: Annotated[int, Field(description="Add the K most relevant chunks of the "
                                                    "current index (0: none).", ge=0, le=50)] = 0,
        repo: Repo = None,
    ) -> CallToolResult:
        """Everything a story holds: its record, commits, net changed files, notes and
        decisions, links. Same JSON as `genesis story context --json`."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.stories import context_text

            data = g.stories.context(story_id, with_code=with_code)
            return data, "\n".join([*data.get("notes", []), context_text(data)])
        return tools.run(repo, work)

    @server.tool(annotations=read_only)
    def story_list(
        status: Annotated[str | None, Field(description="Only this status: draft, "
                                                        "in_progress, review, done, "
                                                        "archived.")] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        """The stories of the ledger, most recently updated first (`genesis story list --json`)."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.stories import list_short

            data = {"stories": g.stories.all(status)}
            return data, list_short(data)
        return tools.run(repo, work)

    @server.tool(annotations=read_only)
    def session_status(repo: Repo = None) -> CallToolResult:
        """The worktree's active session: files, chunks, document, notes not yet bound
        (`genesis session status --json`; active is null without one)."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.sessions import status_short

            data = {"active": g.sessions.active()}
            return data, status_short(data["active"])
        return tools.run(repo, work)

    @server.tool(annotations=writes)
    def session_start(
        doc: Annotated[str | None, Field(description="The requirement document of the work "
                                                     "(relative to the repository's root); "
                                                     "bound to the story at commit.")] = None,
        name: Annotated[str | None, Field(description="A name for the session.")] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        """Start (or resume) the worktree's session and index the working tree
        (`genesis session start --json`)."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.sessions import report_short

            data = g.sessions.start(doc=in_repo(g, doc), name=name).as_dict()
            return data, report_short(data)
        return tools.run(repo, work)

    @server.tool(annotations=writes)
    def session_note(
        text: Annotated[str, Field(description="The note itself.")],
        role: Annotated[str, Field(description="analysis, decision, risk, note, test_model or "
                                               "doc_change.")] = "note",
        path: Annotated[str | None, Field(description="The file the note is about (relative "
                                                      "to the repository's root).")] = None,
        section: Annotated[str | None, Field(description="The section of that file (a "
                                                         "heading, a symbol).")] = None,
        allow_secret: Annotated[bool, Field(description="Share the note even if it looks like "
                                                        "it holds a secret (a token, a key, a "
                                                        "password).")] = False,
        repo: Repo = None,
    ) -> CallToolResult:
        """Record a note, decision or risk in the session; the next commit whose message names
        a story binds it (`genesis session note --json`).  A note that looks like it holds a
        secret is kept private (never shared) and the answer says so."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.sessions import noted_short

            item = g.sessions.note(text, role=role, path=in_repo(g, path), section=section,
                                   allow_secret=allow_secret)
            return item, noted_short(item)
        return tools.run(repo, work)

    @server.tool(annotations=read_only)
    def design_search(
        query: Annotated[str, Field(description="What to look for, e.g. '深色 卡片 间距' or "
                                                "'touch target size'.")],
        top: Annotated[int | None, Field(description="Results (default design.top).",
                                         ge=1, le=100)] = None,
        repo: Repo = None,
    ) -> CallToolResult:
        """Search the design reference library, with a score breakdown per card
        (`genesis design search --json`)."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.design import search_short

            data = g.design.search(query, top, strict=False)
            return data, search_short(data)
        return tools.run(repo, work)

    @server.tool(annotations=writes)
    def design_brief(
        query: Annotated[str, Field(description="The task the brief is for, e.g. 'dark mode "
                                                "home cards'.")],
        repo: Repo = None,
    ) -> CallToolResult:
        """Pick 3-5 reference cards for a task, write them to tasks/design-brief.md and append
        an inspiration record to the outbox (`genesis design brief --json`).  Without a
        library, or with no card that may enter a brief, the result is an error and nothing
        is written."""
        def work(g: Genesis) -> tuple[dict[str, Any], str]:
            from genesis_git.render.design import brief_short

            data = g.design.brief(query)
            return data, brief_short(data)
        return tools.run(repo, work)

    __import__("genesis_git.mcp.check_tool", fromlist=["register"]).register(server, tools)
    return server, tools


def serve() -> None:
    """Serve on stdin/stdout until stdin closes; warnings and tracebacks go to the log of the
    repository the server starts in (else the user cache's), never to stderr."""
    from genesis_git.kernel.log import log_to_file

    log_to_file(_log_file(), __version__)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    here = Path.cwd()
    workspaces = Workspaces(max_repos(here), default=here)
    server, _ = build_server(workspaces)
    try:
        server.run("stdio")
    finally:
        workspaces.close()


def _log_file() -> str | os.PathLike[str]:
    """``genesis.log`` in the store's folder of the server's repository, else the user cache."""
    from genesis_git.kernel.log import user_cache_log

    try:
        from genesis_git.app.facade import Genesis

        return Genesis().workspace.log_path
    except Exception:
        return user_cache_log()
