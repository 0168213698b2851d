"""``ralph mcp``: Ralph's MCP server on stdio, over the project's tracker and store."""

from __future__ import annotations

import typer

from ralph.cli._project import open_project_of

__all__ = ["mcp_command"]


def mcp_command(ctx: typer.Context) -> None:
    """Serve the ralph_hero__* tools over stdio (for Claude Code and other MCP clients).

    Add it to a project's .mcp.json:
    {"mcpServers": {"ralph-hero": {"command": "ralph", "args": ["mcp"]}}}
    """
    from ralph.mcp import build_server

    with open_project_of(ctx) as project:
        build_server(project).run("stdio")
