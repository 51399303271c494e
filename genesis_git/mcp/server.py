"""``genesis mcp``: genesis's tools for coding agents, over the Model Context Protocol on stdio.

Built on the official Python SDK (``mcp`` 2.x, :class:`mcp.server.mcpserver.MCPServer`),
an optional extra (``mcp``; see :mod:`genesis_git.kernel.extras`).  Every tool calls the
same core functions as the command line, through :class:`genesis_git.app.facade.Genesis`,
and returns the JSON that the command's ``--json`` prints as structured
content, with a short text rendering and the same JSON serialized beside it,
within ``mcp.max_answer_bytes`` (:mod:`genesis_git.mcp.answer`).  The tools are
defined by kind in :mod:`genesis_git.mcp.tools_search`,
:mod:`genesis_git.mcp.tools_story` and :mod:`genesis_git.mcp.tools_design`.

The server keeps what it loaded warm between calls, per repository: the open
store, the session's search base, the chunk texts its searches read, the impact
corpus.  Before each call it does
the refresh the CLI does (answered from the session's state key when git
reports nothing new), so an edit saved a second ago is found.  At most
``mcp.max_repos`` repositories are kept; the least recently used is closed.

Calls on one repository run one at a time, calls on different repositories side by
side (:meth:`Workspaces.using`).  A bad argument, a path outside a repository or an
unknown story is a tool error of one line; the server carries on.  The stdio transport
is genesis's own (:mod:`genesis_git.mcp.transport`): every request gets an answer,
nothing but protocol messages goes to stdout and nothing to stderr; warnings and the
tracebacks of bugs go to the store's ``genesis.log``, as the command line's do
(:func:`genesis_git.kernel.errors.handle`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

from genesis_git import __version__
from genesis_git.app.workspaces import Workspaces, max_repos
from genesis_git.mcp.calls import GenesisServer
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
- search: to find a passage, a config key or a doc section (match=ranked), or
  every line holding an exact string or a regex, like git grep (match=fixed or
  match=regex). files=true gives one line per file; type/path/component/owner narrow it.
- symbols: where a class, function, method, table or module-level variable is
  defined (path:line), with refs=true every line that uses it, with outline=<file>
  what a file defines.
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
- check: before you open a pull request, what the change probably forgot: files
  that changed with these in history, callers of edited definitions, untouched
  tests, docs naming an edited symbol, files the story's requirement names
  (staged=true for the index, or rev=<commit or range>).

Every tool takes an optional repo: the absolute path of the repository (or a
folder inside it); without it, the server's working directory is used, or, when
that is not in a repository, the first of the client's workspace roots that is. Search
and impact see the working tree as it is now. A very long query is read in
part (its first 32,768 characters, its 128 weightiest terms) and the result says so.
Results carry the same JSON as the genesis command's --json, as structured content
and serialized in a text block after a short rendering. An answer is kept within
mcp.max_answer_bytes (64 KiB); one that was cut says so in truncated and gives
next_cursor: call again with the same arguments and cursor=<next_cursor> for the rest.
"""

class GenesisTools:
    """The tools, over :class:`Workspaces`: calls on one repository run one at a time, calls
    on different repositories side by side (:meth:`Workspaces.using`).  While a call runs,
    the long work it does (the first index of a repository) is reported to the client when
    the request carries a progress token, and a call without ``repo`` made outside a
    repository asks the client for its workspace roots."""

    def __init__(self, workspaces: Workspaces):
        self.workspaces = workspaces

    def run(self, repo: str | None, work: Callable[[Genesis], tuple[dict[str, Any], str]]
            ) -> CallToolResult:
        from genesis_git.mcp.calls import current
        from genesis_git.mcp.progress import reporting

        call = current()
        g: Genesis | None = None
        try:
            with self.workspaces.using(repo, call.roots if call else None) as g, \
                    reporting(call):
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
    from genesis_git.kernel.log import record_bug, user_cache_log

    tool = work.__qualname__.split(".<locals>.")[-2:-1] or ["?"]

    def record(line: str, detail: str) -> object:
        logs: list[str | os.PathLike[str]] = [*([g.workspace.log_path] if g is not None else []),
                                              user_cache_log()]
        return record_bug(logs, ["genesis", "mcp", *tool], detail, __version__)

    failure = handle(exc, record=record)
    return f"internal error: {failure.message}" if failure.internal else failure.message


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))],
                          is_error=True)


# -- the server ---------------------------------------------------------------------------

def build_server(workspaces: Workspaces | None = None) -> tuple[MCPServer[Any], GenesisTools]:
    """The MCP server with genesis's tools (not started)."""
    tools = GenesisTools(workspaces or Workspaces())
    server: MCPServer[Any] = GenesisServer("genesis", title="genesis", version=__version__,
                                           instructions=INSTRUCTIONS, log_level="WARNING")
    from genesis_git.mcp import check_tool, tools_design, tools_search, tools_story
    from genesis_git.mcp.schemas import declare_output_schemas

    tools_search.register(server, tools)
    tools_story.register(server, tools)
    tools_design.register(server, tools)
    check_tool.register(server, tools)
    declare_output_schemas(server)
    return server, tools


def serve() -> None:
    """Serve on stdin/stdout until stdin closes; warnings, tracebacks and whatever would go
    to stderr go to the log of the repository the server starts in (else the user cache's),
    never to stderr (:mod:`genesis_git.mcp.transport`)."""
    from genesis_git.kernel.log import log_to_file

    log = _log_file()
    log_to_file(log, __version__)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    here = Path.cwd()
    workspaces = Workspaces(max_repos(here), default=here)
    server, _ = build_server(workspaces)
    if isinstance(server, GenesisServer):
        server.log_file = os.fspath(log)
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
