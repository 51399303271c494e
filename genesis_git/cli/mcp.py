"""``genesis mcp``: serve genesis's tools to coding agents over MCP (stdio)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from genesis_git.kernel.extras import generic_hint

INSTALL_HINT = generic_hint("mcp")
HELP = """Serve genesis's tools (search, impact, story_context, story_list, session_status,
session_start, session_note, design_search, design_brief) to a coding agent over the
Model Context Protocol on stdin/stdout. Register it once in your agent, e.g.
`claude mcp add genesis -- genesis mcp`; `--print-config` prints the lines for
Claude Code, Cursor or VS Code. Needs the optional extra mcp: """ + INSTALL_HINT


class Client(str, Enum):
    claude = "claude"
    cursor = "cursor"
    vscode = "vscode"


def genesis_executable() -> str:
    """The absolute path of the installed ``genesis`` command (GUI clients often lack the
    virtual environment on PATH)."""
    beside = Path(sys.executable).parent / ("genesis.exe" if os.name == "nt" else "genesis")
    if beside.is_file():
        return str(beside)
    found = shutil.which("genesis")
    if found:
        return str(Path(found).resolve())
    return str(Path(sys.argv[0]).resolve())


def client_config(client: Client, command: str) -> str:
    """The snippet that registers ``command mcp`` in ``client``."""
    if client is Client.claude:
        return (f"claude mcp add genesis -- {_shell_word(command)} mcp\n"
                "# or, for everyone working on the project, in .mcp.json:\n"
                + json.dumps({"mcpServers": {"genesis": {"command": command, "args": ["mcp"]}}},
                             indent=2))
    if client is Client.cursor:
        body: dict[str, Any] = {"mcpServers": {"genesis": {"command": command, "args": ["mcp"]}}}
        return "# .cursor/mcp.json\n" + json.dumps(body, indent=2)
    body = {"servers": {"genesis": {"type": "stdio", "command": command,
                                    "args": ["-C", "${workspaceFolder}", "mcp"]}}}
    return "# .vscode/mcp.json\n" + json.dumps(body, indent=2)


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def mcp(
    print_config: Annotated[Client | None, typer.Option(
        "--print-config", metavar="claude|cursor|vscode",
        help="Print the lines that register this server in Claude Code, Cursor or VS Code "
             "(with the absolute path of this genesis) and exit.")] = None,
) -> None:
    """Serve genesis's tools to a coding agent over the Model Context Protocol (stdio)."""
    from genesis_git.kernel.errors import EnvironmentProblem
    from genesis_git.kernel.extras import install_hint

    if print_config is not None:
        typer.echo(client_config(print_config, genesis_executable()))
        return
    try:
        import mcp as _sdk  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("genesis mcp needs the MCP SDK, an optional extra",
                                 hint=f"install it with: {install_hint('mcp')}") from None
    from genesis_git.mcp.server import serve

    serve()


def register(app: typer.Typer) -> None:
    """Add the top-level ``mcp`` command to ``app``."""
    app.command("mcp", help=HELP)(mcp)
