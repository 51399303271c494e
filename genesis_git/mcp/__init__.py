"""The MCP server (``genesis mcp``) and its text renderings."""
