"""A Jira project as Ralph needs it: its statuses for Ralph's states, the estimate
field, and the checks ``ralph init`` and ``ralph doctor`` run (what is missing, each
said in one line with what to do). Ralph does not change a Jira workflow: statuses and
transitions are a Jira admin's, so a missing one is said, not made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ralph._text import one_line
from ralph.errors import ConfigError, RalphError
from ralph.jira import JiraClient, JiraNotFound
from ralph.tracker._model import Check
from ralph.tracker.jira._mapping import EstimateField, StatusMap
from ralph.workflow import WorkflowState

__all__ = ["DEFAULT_ESTIMATE_FIELD", "JiraProject", "check_project", "read_project"]

#: Jira Software's story points field on a Cloud site.
DEFAULT_ESTIMATE_FIELD = "Story point estimate"


@dataclass(frozen=True)
class JiraProject:
    key: str
    id: str
    name: str
    #: The project's statuses by name (casefolded): (id, name, category key).
    statuses: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    estimate: EstimateField | None = None
    #: Its issue types' names by hierarchy level (1 epics, 0 standard issues, -1
    #: sub-tasks), the first of each level (Task before Story for standard ones).
    types: Mapping[int, str] = field(default_factory=dict)

    def missing(self, mapping: StatusMap) -> list[str]:
        """Ralph's states whose status the project lacks, as ``State (status)``."""
        return [
            state.value if name == state.value else f"{state.value} ({name})"
            for state, name in mapping.names.items()
            if name.casefold() not in self.statuses
        ]


def read_project(client: JiraClient, key: str, estimate_field: str) -> JiraProject:
    """The project ``key`` with its statuses and the field named ``estimate_field`` (a
    name or an id); ConfigError naming the fix when there is no such project."""
    try:
        node: dict[str, Any] = client.get(f"/project/{key}")
    except JiraNotFound:
        raise ConfigError(
            f"no Jira project {key} (or the account cannot see it); check the key in "
            "[jira] project of ralph.toml and that the account may browse it"
        ) from None
    statuses: dict[str, tuple[str, str, str]] = {}
    for issue_type in client.get(f"/project/{key}/statuses") or []:
        for status in issue_type.get("statuses") or []:
            category = (status.get("statusCategory") or {}).get("key", "")
            statuses[str(status["name"]).casefold()] = (
                str(status["id"]),
                str(status["name"]),
                str(category),
            )
    types: dict[int, str] = {}
    for issue_type in sorted(
        node.get("issueTypes") or [], key=lambda t: str(t.get("name")) != "Task"
    ):
        types.setdefault(int(issue_type.get("hierarchyLevel", 0)), str(issue_type["name"]))
    return JiraProject(
        key,
        str(node["id"]),
        str(node.get("name", key)),
        statuses,
        _field(client, estimate_field),
        types,
    )


def _field(client: JiraClient, wanted: str) -> EstimateField | None:
    for node in client.get("/field") or []:
        if wanted.casefold() in (
            str(node.get("id", "")).casefold(),
            str(node.get("name", "")).casefold(),
        ):
            kind = (node.get("schema") or {}).get("type")
            return EstimateField(str(node["id"]), str(node.get("name", wanted)), kind == "number")
    return None


def check_project(
    client: JiraClient, key: str, mapping: StatusMap, estimate_field: str
) -> list[Check]:
    """What ``ralph doctor`` says of the project: readable, every state's status there,
    and the estimate field there; each line printable (names come from Jira)."""
    return [
        replace(c, detail=one_line(c.detail)) for c in _checks(client, key, mapping, estimate_field)
    ]


def _checks(client: JiraClient, key: str, mapping: StatusMap, estimate_field: str) -> list[Check]:
    try:
        project = read_project(client, key, estimate_field)
    except RalphError as exc:
        return [Check("tracker", False, str(exc))]
    checks = [Check("tracker", True, f"jira (project {key}, {project.name}); readable")]
    missing = project.missing(mapping)
    if missing:
        checks.append(
            Check(
                "jira statuses",
                False,
                f"project {key} has no status for {', '.join(missing)}; add them to its "
                "workflow in Jira, or map each state to a status it has in [jira.statuses] "
                "of ralph.toml",
            )
        )
    else:
        checks.append(Check("jira statuses", True, "a status for each of Ralph's states"))
    wrong_category = [
        name
        for state, name in mapping.names.items()
        if name.casefold() in project.statuses
        and (project.statuses[name.casefold()][2] == "done")
        != (state in (WorkflowState.DONE, WorkflowState.CANCELED))
    ]
    if wrong_category:
        checks.append(
            Check(
                "jira status categories",
                False,
                f"status {', '.join(wrong_category)} of project {key} is in the wrong category "
                "(Done and Canceled must be in Jira's Done category, every other state not)",
            )
        )
    if project.estimate is None:
        checks.append(
            Check(
                "jira estimates",
                False,
                f"no field {estimate_field!r} on this Jira site; name the story points or "
                "T-shirt field as [jira] estimate_field in ralph.toml",
            )
        )
    else:
        kind = "points" if project.estimate.number else "sizes"
        checks.append(Check("jira estimates", True, f"{project.estimate.name} ({kind})"))
    return checks
