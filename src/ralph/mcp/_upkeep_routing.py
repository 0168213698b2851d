"""The routing rules as the original's tool (``configure_routing``), over the library
functions ``ralph route`` calls (``ralph.board``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ralph.board import RoutingFile, route_issue
from ralph.mcp._context import ToolContext

__all__ = ["register_routing_tools"]


def register_routing_tools(tools: ToolContext) -> None:
    project = tools.project

    @tools.write("configure routing")
    def configure_routing(
        operation: Literal[
            "list_rules", "add_rule", "update_rule", "remove_rule", "validate_rules", "dry_run"
        ],
        configPath: str | None = None,
        rule: dict[str, Any] | None = None,
        ruleIndex: Annotated[int | None, Field(ge=0)] = None,
        issueNumber: int | None = None,
    ) -> dict[str, Any]:
        """Read and change ``.ralph-routing.yml`` (inside the project): list, add, update
        or remove a rule (each change checked whole before it is written), validate the
        file, or say where an issue would go (``dry_run``, nothing written)."""
        routing = RoutingFile.of(project.config.root, configPath)
        where = {"configPath": routing.shown}
        if operation == "list_rules":
            return {**where, **routing.listing()}
        if operation == "validate_rules":
            return {**where, **routing.validation()}
        if operation == "dry_run":
            if issueNumber is None:
                raise ValueError("dry_run needs issueNumber: the issue to route")
            decision = route_issue(project.tracker, routing.load(), issueNumber)
            return {**where, "dryRun": True, **decision.to_dict()}
        if operation in ("update_rule", "remove_rule") and ruleIndex is None:
            raise ValueError(f"{operation} needs ruleIndex: the rule's place in the list, from 0")
        if operation in ("add_rule", "update_rule") and rule is None:
            raise ValueError(f"{operation} needs rule: {{match: {{...}}, action: {{...}}}}")
        if operation == "add_rule" and rule is not None:
            rules = routing.add(rule)
        elif operation == "update_rule" and rule is not None and ruleIndex is not None:
            rules = routing.replace(ruleIndex, rule)
        elif operation == "remove_rule" and ruleIndex is not None:
            rules = routing.remove(ruleIndex)
        else:  # pragma: no cover - every operation is handled above
            raise ValueError(f"unknown operation {operation!r}")
        return {**where, "operation": operation, "rules": rules}
