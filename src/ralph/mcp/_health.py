"""The server's own health and the debug log (the original's ``health_check``,
``collate_debug`` and ``debug_stats``), and one issue's Workflow State carried to every
other board it is on (``sync_across_projects``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from ralph._debuglog import DEBUG_LOG_DIR
from ralph.debug import GroupBy, collate, debug_stats, parse_since, read_events
from ralph.errors import RalphError
from ralph.mcp._context import ToolContext
from ralph.workflow import parse_state

__all__ = ["SYNC_AUDIT_MARKER", "register_health_tools"]

#: How a cross-project sync's audit comment begins (the original's marker).
SYNC_AUDIT_MARKER = "<!-- cross-project-sync-audit -->"

#: The original's four checks, by the names of Ralph's checks they gather.
_CHECK_GROUPS = {
    "auth": ("token", "project token", "RALPH_GH_TOKEN scopes", "RALPH_GH_PROJECT_TOKEN scopes"),
    "repoAccess": ("repository", "repository access", "repository open", "issues", "tracker"),
    "projectAccess": ("project", "project open", "project access", "store"),
    "requiredFields": ("field Workflow State", "field Priority", "field Estimate"),
}


def _grouped(checks: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    grouped = {}
    for group, names in _CHECK_GROUPS.items():
        found = [checks[name] for name in names if name in checks]
        if not found:
            grouped[group] = {"status": "skip", "detail": "not checked"}
            continue
        failed = [c["detail"] for c in found if c["status"] == "fail"]
        detail = "; ".join(failed) if failed else "; ".join(c["detail"] for c in found)
        grouped[group] = {"status": "fail" if failed else "ok", "detail": detail}
    return grouped


def register_health_tools(tools: ToolContext) -> None:
    project = tools.project

    @tools.read("check health")
    def health_check() -> dict[str, Any]:
        """Whether the server can do its work: what the tracker checks of itself (as
        ralph doctor reports it: on GitHub the token, the repository, the board and
        Ralph's fields) and the task store."""
        tracker = project.tracker
        checks = {
            c.name: {"status": "ok" if c.ok else "fail", "detail": c.detail}
            for c in tracker.check()
        }
        try:
            project.store.list_runs()
            checks["store"] = {"status": "ok", "detail": "the task store is readable"}
        except RalphError as exc:
            checks["store"] = {"status": "fail", "detail": str(exc)}
        settings = {**tracker.settings(), "store": project.config.store_url}
        grouped = _grouped(checks)
        ok = all(c["status"] in ("ok", "skip") for c in grouped.values())
        return {
            "status": "ok" if ok else "issues_found",
            "checks": grouped,
            "details": checks,
            "config": settings,
        }

    def since_of(text: str | None, default: str) -> Any:
        moment = parse_since(text or default, datetime.now(UTC))
        return read_events(project.config.root / DEBUG_LOG_DIR, moment)

    @tools.read("read debug statistics", name="debug_stats")
    def debug_stats_tool(
        since: Annotated[
            str | None, Field(description="A span back (30m, 24h, 7d, 2w) or a date; 7d")
        ] = None,
        groupBy: Annotated[str, Field(description="tool, category or day")] = "tool",
    ) -> dict[str, Any]:
        """Calls, errors and time in the debug log (RALPH_DEBUG=1), per tool, category
        or day."""
        if groupBy not in {g.value for g in GroupBy}:
            raise ValueError("groupBy must be tool, category or day")
        read = since_of(since, "7d")
        stats = debug_stats(
            read.events, since=read.since, sessions=read.sessions, group_by=GroupBy(groupBy)
        )
        return stats.to_dict()

    @tools.write("collate debug errors")
    def collate_debug(
        since: Annotated[
            str | None, Field(description="A span back (30m, 24h, 7d, 2w) or a date; 24h")
        ] = None,
        dryRun: bool = False,
    ) -> dict[str, Any]:
        """Group the debug log's errors by signature and file one debug-auto issue per
        signature (an Occurrence Report on one filed before); dryRun files nothing."""
        read = since_of(since, "24h")
        result = collate(read, None if dryRun else project.tracker, dry_run=dryRun)
        return result.to_dict()

    @tools.write("sync across projects")
    def sync_across_projects(
        number: int,
        workflowState: str,
        dryRun: bool = False,
        auditComment: bool = True,
    ) -> dict[str, Any]:
        """Set the issue's Workflow State on every other board it is on (this board's
        moves only through update_workflow_state, audited). GitHub only."""
        state = parse_state(workflowState)
        board = project.tracker.project_board()
        memberships = board.memberships(number)
        if not memberships:
            return {
                "number": number,
                "message": "Issue is not a member of any GitHub Project",
                "synced": [],
                "skipped": [],
            }
        own = board.info().id
        synced: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for member in memberships:
            entry: dict[str, Any] = {
                "projectNumber": member.project_number,
                "currentState": member.workflow_state,
                "targetState": state.value,
            }
            if member.project_id == own:
                skipped.append({**entry, "reason": "this_board"})
            elif member.workflow_state == state.value:
                skipped.append({**entry, "reason": "already_at_target_state"})
            elif dryRun:
                synced.append({**entry, "dryRun": True})
            else:
                why = board.set_state_on(member, state.value)
                if why is None:
                    synced.append(entry)
                else:
                    reason, _, detail = why.partition(": ")
                    skipped.append({**entry, "reason": reason, "detail": detail})
        commented = False
        if auditComment and not dryRun and synced:
            lines = "\n".join(
                f"- Project #{s['projectNumber']} ({s['currentState'] or 'none'} -> {state.value})"
                for s in synced
            )
            project.tracker.add_comment(
                number,
                f"{SYNC_AUDIT_MARKER}\n**Cross-project sync** — Workflow State synced to "
                f"**{state.value}** across {len(synced)} project(s):\n{lines}",
                author=tools.actor,
            )
            commented = True
        return {
            "number": number,
            "workflowState": state.value,
            "dryRun": dryRun,
            "syncedCount": len(synced),
            "skippedCount": len(skipped),
            "synced": synced,
            "skipped": skipped,
            "auditCommentAdded": commented,
        }
