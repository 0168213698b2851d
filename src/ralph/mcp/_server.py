"""Ralph's MCP server, ``ralph-hero``: the original's tool names over this project's
tracker and task store, for Claude Code, Claude Desktop or any MCP client (``ralph
mcp``, stdio) and, read-only, in-process for the agents Ralph runs."""

from __future__ import annotations

from mcp.server import MCPServer

from ralph.config import Project
from ralph.mcp._context import ToolContext
from ralph.mcp._issues import register_issue_tools
from ralph.mcp._pipeline import register_pipeline_tools
from ralph.mcp._tasks import register_task_tools

__all__ = ["SERVER_NAME", "build_server"]

SERVER_NAME = "ralph-hero"

_INSTRUCTIONS = (
    "Ralph's workflow tools: issues with their Workflow State, Estimate and Priority, "
    "sub-issues and dependencies, pipeline position and groups, and the task store's "
    "claim/heartbeat/complete primitives. Errors say how to recover."
)


def build_server(project: Project, *, read_only: bool = False, actor: str = "mcp") -> MCPServer:
    """The server over ``project``. ``read_only`` leaves out every tool that writes."""
    server = MCPServer(SERVER_NAME, instructions=_INSTRUCTIONS)
    tools = ToolContext(server, project, read_only=read_only, actor=actor)
    register_issue_tools(tools)
    register_pipeline_tools(tools)
    register_task_tools(tools)
    return server
