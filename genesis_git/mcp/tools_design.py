"""The design library's tools: ``design_search`` and ``design_brief``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp_types import CallToolResult
from pydantic import Field

from genesis_git.mcp.common import READ_ONLY, WRITES, call
from genesis_git.mcp.tools_search import Cursor, Repo

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from genesis_git.app.facade import Genesis
    from genesis_git.mcp.server import GenesisTools

DESIGN_SEARCH = """For UI work: search the repository's design reference library (cards on
spacing, contrast, type scale, dark mode, touch targets, …), each result with its score
breakdown. Reads the library's files only. Without a library the answer says available:
false."""

DESIGN_BRIEF = """For UI work, before designing a screen: pick 3-5 reference cards for the
task, write them to tasks/design-brief.md in the working tree and record the pick in the
library's outbox. An error, with nothing written, when there is no library or no card may
enter a brief."""


def register(server: MCPServer[Any], tools: GenesisTools) -> None:
    @server.tool(annotations=READ_ONLY, description=DESIGN_SEARCH)
    def design_search(
        query: Annotated[str, Field(description="What the screen needs, e.g. 'touch target "
                                                "size' or '深色 卡片 间距'.")],
        top: Annotated[int | None, Field(description="Results (default 5).", ge=1, le=100)]
                       = None,
        cursor: Cursor = None,
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.design import search_short

            return g.design.search(query, top, strict=False), search_short
        return call(tools, repo, "design_search", {"query": query, "top": top}, "results",
                    cursor, produce)

    @server.tool(annotations=WRITES, description=DESIGN_BRIEF)
    def design_brief(
        query: Annotated[str, Field(description="The task, e.g. 'dark mode home cards'.")],
        repo: Repo = None,
    ) -> CallToolResult:
        def produce(g: Genesis) -> tuple[dict[str, Any], Any]:
            from genesis_git.render.design import brief_short

            return g.design.brief(query), brief_short
        return call(tools, repo, "design_brief", {"query": query}, None, None, produce)
