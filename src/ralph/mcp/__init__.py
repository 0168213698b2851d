"""Ralph's MCP server (``ralph mcp``): the original's ``ralph_hero__*`` tools over the
project's tracker and task store."""

from __future__ import annotations

from ralph.mcp._context import PREFIX
from ralph.mcp._server import SERVER_NAME, build_server

__all__ = ["PREFIX", "SERVER_NAME", "build_server"]
