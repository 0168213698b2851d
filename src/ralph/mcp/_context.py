"""What every tool module registers through: the tools the server is made with, the
project, one lock (tools run on worker threads; the project's tracker and store see one
call at a time), and the read-only switch agents' in-process servers use."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.tools import Tool

from ralph.mcp._envelope import tool_call
from ralph.mcp._limits import CALL_SECONDS
from ralph.mcp._made_tools import made_tool
from ralph.pipeline import GroupResult, detect_group
from ralph.project import Project

__all__ = ["PREFIX", "ToolContext"]

#: The original's tool names: ``ralph_hero__get_issue`` and so on.
PREFIX = "ralph_hero__"

F = TypeVar("F", bound=Callable[..., Any])


class ToolContext:
    def __init__(
        self,
        project: Project,
        *,
        read_only: bool,
        actor: str,
        call_seconds: float = CALL_SECONDS,
    ):
        self.call_seconds = call_seconds
        self.project = project
        self.read_only = read_only
        self.actor = actor
        self.lock = threading.Lock()
        self.names: list[str] = []
        #: The tools registered, in order, for the server to be made with.
        self.tools: list[Tool] = []
        #: Tool name -> the names of the arguments it takes.
        self.parameters: dict[str, tuple[str, ...]] = {}

    def _register(self, verb: str, *, writes: bool, name: str | None) -> Callable[[F], F]:
        def decorate(body: F) -> F:
            if writes and self.read_only:
                return body
            full = PREFIX + (name or body.__name__)
            call = tool_call(verb, self.lock, self.call_seconds)(body)
            self.tools.append(made_tool(call, body, name=full, writes=writes))
            self.names.append(full)
            self.parameters[full] = tuple(inspect.signature(body).parameters)
            return body

        return decorate

    def read(self, verb: str, *, name: str | None = None) -> Callable[[F], F]:
        """Register a tool that changes nothing (named after the function, or ``name``)."""
        return self._register(verb, writes=False, name=name)

    def write(self, verb: str, *, name: str | None = None) -> Callable[[F], F]:
        """Register a tool that changes the tracker or the store (not in read-only mode)."""
        return self._register(verb, writes=True, name=name)

    # -- shared lookups -------------------------------------------------------------

    def group(self, number: int) -> GroupResult:
        return detect_group(
            number, self.project.tracker.relations, self.project.tracker.relations_of
        )

    def group_dict(self, number: int) -> dict[str, Any]:
        """The group in the original's shape (``groupTickets``, ``groupPrimary``,
        ``totalTickets``) plus this port's ``issues``/``primary``."""
        group = self.group(number)
        tickets = []
        for order, member in enumerate(group.issues, 1):
            issue = self.project.tracker.get_issue(member)
            state = issue.workflow_state.value if issue.workflow_state else None
            tickets.append({"number": member, "title": issue.title, "state": state, "order": order})
        primary = next(t for t in tickets if t["number"] == group.primary)
        return {
            **group.to_dict(),
            "groupPrimary": {"number": group.primary, "title": primary["title"]},
            "groupTickets": tickets,
            "totalTickets": len(tickets),
        }
