"""``genesis mcp --print-config CLIENT``: the file that registers ``genesis mcp`` in a coding
agent, and where it goes.

The file's content goes to stdout and nothing else does, so that ``> .mcp.json`` gives a
valid file; where to put it, and the other way to register it, go to stderr.

Two scopes: ``project`` is a file to commit and share, so it names ``genesis`` as found on
each one's ``PATH``; ``user`` is one person's, so it names the absolute path of the
``genesis`` that printed it (GUI clients often start servers without a virtual
environment on ``PATH``).  No SDK needed: this runs without the ``mcp`` extra.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class Client(str, Enum):
    claude = "claude"
    claude_desktop = "claude-desktop"
    codex = "codex"
    cursor = "cursor"
    vscode = "vscode"
    generic = "generic"


class Scope(str, Enum):
    project = "project"
    user = "user"


#: the clients that have no project file (their default scope is ``user``)
USER_ONLY = frozenset({Client.claude_desktop})
DESKTOP_FILE = ("~/Library/Application Support/Claude/claude_desktop_config.json (macOS), "
                "%APPDATA%\\Claude\\claude_desktop_config.json (Windows)")


@dataclass(frozen=True)
class Snippet:
    """``text`` for stdout (the file), ``notes`` for stderr (where it goes)."""

    text: str
    notes: list[str]


def genesis_executable() -> str:
    """The absolute path of the installed ``genesis`` command."""
    beside = Path(sys.executable).parent / ("genesis.exe" if os.name == "nt" else "genesis")
    if beside.is_file():
        return str(beside)
    found = shutil.which("genesis")
    if found:
        return str(Path(found).resolve())
    return str(Path(sys.argv[0]).resolve())


def default_scope(client: Client) -> Scope:
    return Scope.user if client in USER_ONLY else Scope.project


def snippet(client: Client, scope: Scope, executable: str, repository: Path | None) -> Snippet:
    """The configuration of ``client`` in ``scope``; ``repository`` (the one this runs in,
    if any) is named for a client that starts its servers outside any project."""
    if client in USER_ONLY and scope is Scope.project:
        raise ValueError(f"{client.value} has no project file: use --scope user")
    command = executable if scope is Scope.user else "genesis"
    args = ["mcp"]
    if client is Client.claude_desktop and repository is not None:
        args = ["-C", str(repository), "mcp"]
    server = {"command": command, "args": args}
    word = shlex.quote(command)
    if client is Client.codex:
        text = "[mcp_servers.genesis]\n" + f"command = {json.dumps(command)}\n" + \
            f"args = {json.dumps(args)}"
        where = ".codex/config.toml (read in a trusted project)" if scope is Scope.project \
            else "~/.codex/config.toml"
        return Snippet(text, [f"add to {where}", f"or run: codex mcp add genesis -- {word} mcp"])
    if client is Client.vscode:
        body = {"servers": {"genesis": {"type": "stdio", "command": command,
                                        "args": ["-C", "${workspaceFolder}", "mcp"]}}}
        where = ".vscode/mcp.json" if scope is Scope.project else \
            "your user mcp.json (command palette: MCP: Open User Configuration)"
        return Snippet(json.dumps(body, indent=2), [f"save as {where}"])
    text = json.dumps({"mcpServers": {"genesis": server}}, indent=2)
    if client is Client.claude:
        if scope is Scope.project:
            return Snippet(text, ["save as .mcp.json at the root of the project (shared: it "
                                  "names genesis on each one's PATH)",
                                  f"or, for you alone: claude mcp add --scope user genesis -- "
                                  f"{shlex.quote(executable)} mcp"])
        return Snippet(text, [f"for you alone: claude mcp add --scope user genesis -- {word} mcp",
                              "(this JSON is the same server, for claude mcp add-json)"])
    if client is Client.cursor:
        where = ".cursor/mcp.json" if scope is Scope.project else "~/.cursor/mcp.json"
        return Snippet(text, [f"save as {where}"])
    if client is Client.claude_desktop:
        notes = [f"merge into {DESKTOP_FILE}, then restart Claude Desktop"]
        if repository is None:
            notes.append("Claude Desktop starts servers outside any project: add "
                         '"-C", "<repository>" before "mcp", or pass repo to each tool')
        return Snippet(text, notes)
    return Snippet(text, ["the mcpServers entry most clients read (an mcp.json); "
                          "stdio transport, no environment needed"])
