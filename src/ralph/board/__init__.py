"""Board management on a tracker, as library functions the command line and the MCP tools
both call: the hygiene report and archiving, the project status report and its status
updates, routing issues by ``.ralph-routing.yml`` and editing its rules, and the
dashboard of several boards. Each returns data; rendering it is the caller's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.board._hygiene import ArchiveResult, archive_candidates, hygiene_report
    from ralph.board._projects import parse_projects, projects_dashboard
    from ralph.board._report import StatusReport, post_status_report, status_report
    from ralph.board._routing import (
        RouteDecision,
        RouteStep,
        apply_route,
        load_routing,
        route_issue,
    )
    from ralph.board._routing_file import RoutingFile
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "ArchiveResult",
    "RouteDecision",
    "RouteStep",
    "RoutingFile",
    "StatusReport",
    "apply_route",
    "archive_candidates",
    "hygiene_report",
    "load_routing",
    "parse_projects",
    "post_status_report",
    "projects_dashboard",
    "route_issue",
    "status_report",
]
