"""The MCP tool ``check``: what a change probably forgot, so that an agent can ask before it
opens a pull request.  Same JSON as ``genesis check --json``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from genesis_git.mcp.common import STORE_ONLY, WRITES_STORE, call
from genesis_git.mcp.tools_search import Cursor, Repo

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from genesis_git.app.facade import Genesis
    from genesis_git.mcp.server import GenesisTools


DESCRIPTION = f"""Before opening a pull request: which files this change probably should have touched and
did not (files that changed with these in the past, users of the definitions it edited,
its modules' tests, the story's files, docs naming what it edited), each with its
confidence and reasons. Same JSON as `genesis check --json`; an empty `missing` means
nothing looks forgotten.

{WRITES_STORE}"""


def register(server: MCPServer[Any], tools: GenesisTools) -> None:
    """Add the ``check`` tool to ``server``; its calls run through ``tools``."""
    @server.tool(annotations=STORE_ONLY, description=DESCRIPTION)
    def check(
        rev: Annotated[str | None, Field(
            description="A commit (HEAD) or a range: A..B, or A...B for B against the merge "
                        "base (e.g. origin/main...HEAD, what a pull request shows). Default: "
                        "the working tree's changes to tracked files.")] = None,
        staged: Annotated[bool, Field(description="Check the staged changes instead.")] = False,
        min_confidence: Annotated[float | None, Field(
            description="Return files whose confidence reaches this (0-1; default "
                        "check.min_confidence, 0.5); 0 returns every candidate.",
            ge=0, le=1)] = None,
        story: Annotated[list[str] | None, Field(
            description="Story ids whose requirement lends evidence (default: the stories "
                        "the commits name).")] = None,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        args = {"rev": rev, "staged": staged, "min_confidence": min_confidence, "story": story}

        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.kernel.errors import UsageError
            from genesis_git.render.check import tool_text

            if staged and rev is not None:
                raise UsageError("staged and rev cannot be used together")
            result = g.check.run(rev, staged=staged, min_confidence=min_confidence,
                                 story=story if story else True)
            return result.to_json(), tool_text
        return call(tools, repo, "check", args, "missing", cursor, produce)
