"""Setting up a GitLab project for Ralph, and checking one (``ralph init``, ``ralph
doctor``): the project must be readable with the token, and Ralph's workflow states are
scoped labels ``ralph::<State>`` there. Setup creates the missing ones (with the
estimate and priority labels), each looked up by name before it is created: idempotent
and safe to rerun. GitLab would make a label the first time an issue gets it anyway;
made here they get their colours and descriptions, and a token that may not write is
found at init instead of at the first move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.gitlab import (
    GitLabAmbiguous,
    GitLabAuthError,
    GitLabClient,
    GitLabError,
    GitLabInvalid,
    GitLabNotFound,
    project_id,
)
from ralph.tracker._model import Check
from ralph.tracker.gitlab._mapping import estimate_label, priority_label, state_label
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "LABEL_COLOURS",
    "ProjectSetup",
    "check_project",
    "ralph_labels",
    "read_project",
    "set_up_project",
]

LABEL_COLOURS = {"state": "#6699cc", "estimate": "#a8d695", "priority": "#dc143c"}


def ralph_labels() -> list[tuple[str, str, str]]:
    """Every label Ralph's fields need: (name, colour, description)."""
    found = [
        (state_label(s), LABEL_COLOURS["state"], f"Ralph's workflow state {s.value}")
        for s in WorkflowState
    ]
    found += [
        (estimate_label(e), LABEL_COLOURS["estimate"], f"Ralph's estimate {e.value}")
        for e in Estimate
    ]
    found += [
        (priority_label(p), LABEL_COLOURS["priority"], f"Ralph's priority {p.value}")
        for p in Priority
    ]
    return found


@dataclass(frozen=True)
class ProjectSetup:
    path: str
    #: The labels setup made (the rest were there).
    created: tuple[str, ...]


def read_project(client: GitLabClient, path: str) -> dict[str, Any]:
    """The project at ``path``; GitLabNotFound saying what to check when there is none."""
    try:
        found: dict[str, Any] = client.request("GET", f"/projects/{project_id(path)}")
    except GitLabNotFound:
        raise GitLabNotFound(
            f"GitLab has no project {path} the token can see; check the path "
            "(group/project) and that the token's user is a member"
        ) from None
    if not isinstance(found, dict) or "id" not in found:
        # A page that is no GitLab (a sign-in page, a proxy) answering at the address.
        raise GitLabError(
            f"the answer for project {path} is not GitLab's; check the GitLab URL "
            "(--gitlab-url or gitlab.url)"
        )
    return found


def _label_names(client: GitLabClient, path: str) -> set[str]:
    return {str(la["name"]) for la in client.pages(f"/projects/{project_id(path)}/labels")}


def set_up_project(client: GitLabClient, path: str) -> ProjectSetup:
    """Ralph's labels on project ``path``, the missing ones created."""
    read_project(client, path)
    have = _label_names(client, path)
    created = []
    for name, colour, description in ralph_labels():
        if name in have:
            continue
        body = {"name": name, "color": colour, "description": description}
        try:
            client.request("POST", f"/projects/{project_id(path)}/labels", body=body)
        except (GitLabAmbiguous, GitLabInvalid) as exc:
            # A lost answer or "already exists" (a rerun, a person meanwhile): look.
            if name not in _label_names(client, path):
                raise exc from None
        created.append(name)
    return ProjectSetup(path, tuple(created))


def check_project(client: GitLabClient, path: str) -> list[Check]:
    """What ``ralph doctor`` says of the project: readable, and Ralph's labels there."""
    try:
        user = client.user()
        read_project(client, path)
        have = _label_names(client, path)
    except GitLabAuthError as exc:
        return [
            Check("tracker", False, f"{exc}; set RALPH_GITLAB_TOKEN to a token with the api scope")
        ]
    except GitLabError as exc:
        return [Check("tracker", False, str(exc))]
    missing = [name for name, _c, _d in ralph_labels() if name not in have]
    checks = [
        Check("GitLab token", True, f"authenticated as {user.get('username', '?')}"),
        Check("tracker", True, f"gitlab (project {path}); readable"),
    ]
    if missing:
        checks.append(
            Check(
                "labels",
                False,
                f"{len(missing)} of Ralph's labels missing (first: {missing[0]}); "
                f"run `ralph init --gitlab {path}` to create them",
            )
        )
    else:
        checks.append(Check("labels", True, "Ralph's workflow labels are there"))
    return checks
