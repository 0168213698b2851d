"""A GitLab project's board as a ``ProjectBoard``: there is none to manage here.
Managing a board as a board is GitHub's (Projects V2); a GitLab project's issue boards
are GitLab's own, their lists Ralph's scoped labels. Every operation refuses in one
line that says so and names what to use instead (the MCP tools' words, since they are
who asks)."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import NotAvailable
from ralph.tracker._unmanaged_board import UnmanagedBoard

__all__ = ["GitLabBoard"]

_ISSUES = "list the project's issues with list_issues (by state: pipeline_dashboard)"
_SET_UP = "its labels are Ralph's, set up by `ralph init --gitlab GROUP/PROJECT`"
_CODE_HOST = "pull requests go to the code host in ralph.toml (code_host)"

#: What to use instead on a GitLab project, by operation (as LinearBoard's).
_INSTEAD: Mapping[str, str] = {
    "info": f"{_ISSUES}; {_SET_UP}; {_CODE_HOST}",
    "projects": "this server serves one GitLab project; pipeline_dashboard shows it",
    "update": "rename or describe the project in GitLab's project settings",
    "set_up": "set a GitLab project up with `ralph init --gitlab GROUP/PROJECT`",
    "copy": "set another GitLab project up with `ralph init --gitlab GROUP/PROJECT`",
    "items": "list the project's issues with list_issues",
    "add_item": "every issue of the project is on its board; create one with create_issue",
    "remove_item": "every issue of the project is on its board; archive it with archive_item",
    "clear_field": "set the field with update_estimate or update_priority",
    "add_draft": "create an issue with create_issue (it waits in Backlog)",
    "update_draft": "GitLab has no drafts; change an issue with update_issue",
    "convert_draft": "GitLab has no drafts; create an issue with create_issue",
    "reorder": "order the project's issues on GitLab's own issue boards",
    "views": "filter the project's issues with list_issues; GitLab keeps its own boards",
    "set_field_options": _SET_UP,
    "delete_field": "the project's workflow, estimate and priority labels are Ralph's and stay",
    "repositories": _CODE_HOST,
    "link_repository": _CODE_HOST,
    "collaborators": "the project's members are managed in GitLab's project settings",
    "link_team": "the project is this server's",
    "other_projects": "this server serves one GitLab project; leave the project number out",
    "memberships": "an issue is on its project's board; move it with update_workflow_state",
}


class GitLabBoard(UnmanagedBoard):
    kind = "gitlab"

    def __init__(self, project: str) -> None:
        self.project_path = project

    def unavailable(self, operation: str) -> NotAvailable:
        instead = _INSTEAD.get(operation, "use what the tools for issues offer")
        return NotAvailable(
            f"managing a project board is GitHub's (Projects V2), not the GitLab project "
            f"{self.project_path}'s: {instead}"
        )
