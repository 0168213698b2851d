"""Ralph's MCP server, ``ralph-hero``: the original's tool names over this project's
tracker and task store, for Claude Code, Claude Desktop or any MCP client (``ralph
mcp``, stdio) and, read-only, in-process for the agents Ralph runs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.stdio import stdio_server

import ralph
from ralph._debuglog import debug_enabled, record_event
from ralph._jsonschema import schema_errors
from ralph.mcp._board_items import register_board_item_tools
from ralph.mcp._board_people import register_board_people_tools
from ralph.mcp._board_projects import register_board_project_tools
from ralph.mcp._board_views import register_board_view_tools
from ralph.mcp._context import ToolContext
from ralph.mcp._envelope import failure
from ralph.mcp._health import register_health_tools
from ralph.mcp._issue_reads import register_issue_read_tools
from ralph.mcp._issue_relations import register_issue_relation_tools
from ralph.mcp._issue_writes import register_issue_write_tools
from ralph.mcp._limits import CALL_SECONDS, text_problem
from ralph.mcp._pipeline_advance import register_pipeline_advance_tools
from ralph.mcp._pipeline_dashboard import register_pipeline_dashboard_tools
from ralph.mcp._pipeline_position import register_pipeline_position_tools
from ralph.mcp._runs import register_run_tools
from ralph.mcp._tasks import register_task_tools
from ralph.mcp._unreadable import Answered, AnsweringUnreadable
from ralph.mcp._upkeep_archive import register_archive_tools
from ralph.mcp._upkeep_routing import register_routing_tools
from ralph.mcp._upkeep_status import register_status_update_tools
from ralph.project import Project

__all__ = ["SERVER_NAME", "build_server"]

SERVER_NAME = "ralph-hero"

_INSTRUCTIONS = (
    "Ralph's workflow tools: issues with their Workflow State, Estimate and Priority, "
    "sub-issues and dependencies, pipeline position and groups, and the task store's "
    "claim/heartbeat/complete primitives. Errors say how to recover."
)


#: Arguments every tool of the original takes to pick its repository and board; this
#: server serves one project, so on a GitHub board they must name it.
SCOPE_ARGUMENTS = ("owner", "repo", "projectNumber")


class _Server(MCPServer):
    """Refuses arguments a tool does not take (a misspelt name such as ``estimat``, or
    one of the original's that Ralph lacks, must not be dropped silently) and arguments
    that break the tool's declared schema, before the tool runs: JSON types are strict,
    so ``true`` is no issue number, ``"12"`` no integer and ``1.5`` not truncated."""

    def __init__(self, project: Project, tools: ToolContext) -> None:
        super().__init__(
            SERVER_NAME, instructions=_INSTRUCTIONS, version=ralph.__version__, tools=tools.tools
        )
        self.project = project
        #: Tool name -> the argument names it takes.
        self.parameters: dict[str, tuple[str, ...]] = dict(tools.parameters)

    async def run_stdio_async(self) -> None:
        """Over stdio, as the library does, but every line it cannot read is answered
        with a JSON-RPC error rather than dropped (its client would wait for ever)."""
        async with stdio_server() as (read_stream, write_stream):
            answers = Answered(write_stream)
            await self._lowlevel_server.run(
                AnsweringUnreadable(read_stream, answers),
                answers,
                self._lowlevel_server.create_initialization_options(),
            )

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if not debug_enabled():
            return await self._call(name, arguments, context)
        started = time.monotonic()
        try:
            result = await self._call(name, arguments, context)
        except Exception as exc:
            _record_call(name, arguments, started, str(exc))
            raise
        # A tool error is a failed call, though no exception was raised (the original
        # logged these as ok).
        failed = getattr(result, "is_error", False)
        _record_call(name, arguments, started, _error_text(result) if failed else None)
        return result

    async def _call(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> Any:
        taken = self.parameters.get(name)
        if taken is not None:
            problem = self._problem(name, taken, arguments)
            if problem:
                return failure(problem)
        return await super().call_tool(name, arguments, context)

    def _problem(self, name: str, taken: tuple[str, ...], arguments: dict[str, Any]) -> str:
        scope = self._scope()
        # The original's GitHub names, and the tracker's own (Linear: team).
        scoping = (*SCOPE_ARGUMENTS, *scope)
        unknown = [key for key in arguments if key not in taken and key not in scoping]
        if unknown:
            listed = ", ".join(repr(key) for key in unknown)
            return (
                f"Failed to call {name}: unknown argument(s) {listed}. Recovery: use only "
                f"{', '.join(taken) or 'no arguments'} (and owner, repo, projectNumber)."
            )
        for key, expected in scope.items():
            if key in taken:  # the tool's own argument (list_projects' owner...)
                continue
            given = arguments.get(key)
            if given is not None and str(given) != str(expected):
                return (
                    f"Failed to call {name}: {key} {given!r} is not this server's "
                    f"({expected!r}). Recovery: leave {key} out, or run `ralph mcp` in the "
                    "project that has it."
                )
        schema = self._tool_input_schema(name) or {}
        given = {
            key: value for key, value in arguments.items() if key not in scoping or key in taken
        }
        problems = schema_errors(given, schema, where="argument")
        if problems:
            problem = problems[0].replace("argument.", "argument ", 1)
            problem = problem.replace("argument lacks", "missing required argument", 1)
            return (
                f"Failed to call {name}: {problem}. Recovery: pass every required argument "
                "as a JSON value of the type the tool's input schema declares."
            )
        problem = text_problem(given)
        if problem:
            return f"Failed to call {name}: {problem}. Recovery: fix that argument and retry."
        return ""

    def _scope(self) -> dict[str, object]:
        """What the scope arguments must say, as the tracker names its board (GitHub:
        owner, repository and project); a tracker without such names checks none."""
        return self.project.tracker.scope()


def _record_call(name: str, arguments: dict[str, Any], started: float, error: str | None) -> None:
    fields: dict[str, Any] = {
        "tool": name,
        "params": arguments,
        "durationMs": round((time.monotonic() - started) * 1000),
        "ok": error is None,
    }
    if error is not None:
        fields["error"] = error
    record_event("tool", **fields)


def _error_text(result: Any) -> str:
    """The message of a tool error (the envelope's ``{"error": ...}``)."""
    text = "".join(getattr(part, "text", "") for part in getattr(result, "content", []))
    try:
        data = json.loads(text)
    except ValueError:
        return text
    return str(data.get("error", text)) if isinstance(data, dict) else text


#: Every tool family's registration, in the order the server lists their tools.
TOOL_FAMILIES: tuple[Callable[[ToolContext], None], ...] = (
    register_issue_read_tools,
    register_issue_write_tools,
    register_issue_relation_tools,
    register_pipeline_position_tools,
    register_pipeline_advance_tools,
    register_pipeline_dashboard_tools,
    register_board_project_tools,
    register_board_item_tools,
    register_board_view_tools,
    register_board_people_tools,
    register_archive_tools,
    register_status_update_tools,
    register_routing_tools,
    register_health_tools,
    register_task_tools,
    register_run_tools,
)


def build_server(
    project: Project,
    *,
    read_only: bool = False,
    actor: str = "mcp",
    call_seconds: float = CALL_SECONDS,
) -> MCPServer:
    """The server over ``project``. ``read_only`` leaves out every tool that writes; a
    call answers within ``call_seconds`` (an error when its work takes longer)."""
    tools = ToolContext(project, read_only=read_only, actor=actor, call_seconds=call_seconds)
    for register in TOOL_FAMILIES:
        register(tools)
    return _Server(project, tools)
