"""The application layer: the workspace (repository, settings, store) and the Genesis façade
that every door (the command line, the MCP server, the hooks' slow path) calls."""

from genesis_git.app.facade import Genesis
from genesis_git.app.workspace import Workspace

__all__ = ["Genesis", "Workspace"]
