"""A Linear team's board as a ``ProjectBoard``: there is none to manage. Managing a board
as a board (its items and their order, drafts, fields, views, linked repositories,
collaborators, other boards) is GitHub's (Projects V2); on Linear the team's issues are
its board, shown by Linear itself. Every operation refuses in one line that says so and
names what to use instead (the MCP tools' words, since they are who asks)."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import NotAvailable
from ralph.tracker._unmanaged_board import UnmanagedBoard

__all__ = ["LinearBoard"]

#: What to use instead on a Linear team, by operation.
_INSTEAD: Mapping[str, str] = {
    # What reads the board first (list_project_items, list_views, list_project_repos,
    # copy_project, delete_field's dry run) is answered by this one.
    "info": "list the team's issues with list_issues (by state: pipeline_dashboard); its "
    "states, estimates and priorities are Linear's, set up by `ralph init --linear TEAM`; "
    "pull requests go to the code host in ralph.toml (code_host)",
    "projects": "this server serves one Linear team; pipeline_dashboard shows it",
    "update": "rename or describe the team in Linear's settings",
    "set_up": "set a Linear team up with `ralph init --linear TEAM`",
    "copy": "set another Linear team up with `ralph init --linear TEAM`",
    "items": "list the team's issues with list_issues",
    "add_item": "every issue of the team is on its board; create one with create_issue",
    "remove_item": "every issue of the team is on its board; archive it with archive_item",
    "clear_field": "set the field with update_estimate or update_priority",
    "add_draft": "create an issue with create_issue (it waits in Backlog)",
    "update_draft": "Linear has no drafts; change an issue with update_issue",
    "convert_draft": "Linear has no drafts; create an issue with create_issue",
    "reorder": "order the team's issues in Linear's own views",
    "views": "filter the team's issues with list_issues; Linear keeps its own views",
    "set_field_options": "the team's states, estimates and priorities are Linear's, "
    "set up by `ralph init --linear TEAM`",
    "delete_field": "the team's states, estimates and priorities are Linear's and stay",
    "repositories": "pull requests go to the code host in ralph.toml (code_host)",
    "link_repository": "pull requests go to the code host in ralph.toml (code_host)",
    "collaborators": "the team's members are managed in Linear's settings",
    "link_team": "the team is this server's; give it as team",
    "other_projects": "this server serves one Linear team; leave the project number out",
    "memberships": "an issue is on its one team's board; move it with update_workflow_state",
}


class LinearBoard(UnmanagedBoard):
    kind = "linear"

    def __init__(self, team_key: str) -> None:
        self.team_key = team_key

    def unavailable(self, operation: str) -> NotAvailable:
        instead = _INSTEAD.get(operation, "use what the tools for issues offer")
        return NotAvailable(
            f"managing a project board is GitHub's (Projects V2), not the Linear team "
            f"{self.team_key}'s: {instead}"
        )
