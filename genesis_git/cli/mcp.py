"""``genesis mcp``: serve genesis's tools to coding agents over MCP (stdio)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from genesis_git.kernel.extras import generic_hint
from genesis_git.mcp.clientconfig import Client, Scope, default_scope, genesis_executable, snippet

INSTALL_HINT = generic_hint("mcp")
HELP = """Serve genesis's tools (search, impact, story_context, story_list, session_status,
session_start, session_note, design_search, design_brief) to a coding agent over the
Model Context Protocol on stdin/stdout. Register it once in your agent, e.g.
`claude mcp add genesis -- genesis mcp`; `--print-config` prints the configuration
for Claude Code, Claude Desktop, Codex, Cursor, VS Code or a generic mcp.json.
Needs the optional extra mcp: """ + INSTALL_HINT


def mcp(
    print_config: Annotated[Client | None, typer.Option(
        "--print-config", metavar="|".join(c.value for c in Client),
        help="Print the configuration that registers this server in a client (Claude Code, "
             "Claude Desktop, Codex, Cursor, VS Code, or a generic mcp.json) on stdout, where "
             "it goes on stderr, and exit: `> .mcp.json` gives a valid file.")] = None,
    scope: Annotated[Scope | None, typer.Option(
        "--scope", metavar="project|user",
        help="With --print-config: project (a file to share: genesis from each one's PATH; "
             "the default) or user (yours: the absolute path of this genesis; the default "
             "for Claude Desktop).")] = None,
) -> None:
    """Serve genesis's tools to a coding agent over the Model Context Protocol (stdio)."""
    from genesis_git.kernel.errors import EnvironmentProblem, UsageError
    from genesis_git.kernel.extras import install_hint

    if print_config is not None:
        try:
            made = snippet(print_config, scope or default_scope(print_config),
                           genesis_executable(), _repository())
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        for note in made.notes:
            typer.echo(f"# {note}", err=True)
        typer.echo(made.text)
        return
    if scope is not None:
        raise UsageError("--scope goes with --print-config")
    try:
        import mcp as _sdk  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("genesis mcp needs the MCP SDK, an optional extra",
                                 hint=f"install it with: {install_hint('mcp')}") from None
    from genesis_git.mcp.server import serve

    serve()


def _repository() -> Path | None:
    """The root of the repository this runs in, if any."""
    from genesis_git.app.workspaces import repository_root

    return repository_root(Path.cwd())


def register(app: typer.Typer) -> None:
    """Add the top-level ``mcp`` command to ``app``."""
    app.command("mcp", help=HELP)(mcp)
