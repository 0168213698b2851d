"""The fake's root fields: the queries and mutations the tracker's documents use, each
refusing what Linear refuses (a state of another team, an estimate off the team's scale,
a duplicate or self relation, an unknown id) in Linear's words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ralph.linear.fake._filters import comments_matching, compare, issues_matching
from ralph.linear.fake._model import (
    STATE_TYPES,
    Comment,
    Issue,
    IssueLabel,
    IssueRelation,
    LinearFault,
    Team,
    User,
    WorkflowState,
    Workspace,
    connection,
    not_found,
)

__all__ = ["Root"]


class Root:
    def __init__(self, workspace: Workspace, *, refuse_cycles: bool = False) -> None:
        self.w = workspace
        self.refuse_cycles = refuse_cycles

    # -- queries -----------------------------------------------------------------------------

    def viewer(self, info: Any) -> User:
        user: User = info.context["user"]
        return user

    def team(self, info: Any, id: str) -> Team:
        return self.w.team(id)

    def teams(self, info: Any, **args: Any) -> dict[str, Any]:
        wanted = (args.get("filter") or {}).items()
        for key, _ in wanted:
            if key not in ("id", "key"):
                raise LinearFault(f"The fake does not model the team filter {key!r}")
        found = [
            t
            for t in self.w.teams
            if all(compare(t.id if k == "id" else t.key, c) for k, c in wanted)
        ]
        return connection(found, args)

    def issue(self, info: Any, id: str) -> Issue:
        return self.w.issue(id)

    def issues(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(issues_matching(self.w.issues.values(), args), args)

    def comment(self, info: Any, id: str | None = None, hash: str | None = None) -> Comment:
        found = self.w.comments.get(id or "")
        if found is None:
            raise not_found("Comment")
        return found

    def comments(self, info: Any, **args: Any) -> dict[str, Any]:
        return connection(comments_matching(self.w.comments.values(), args), args)

    # -- mutations ---------------------------------------------------------------------------

    def workflowStateCreate(self, info: Any, input: Mapping[str, Any]) -> dict[str, Any]:
        team = self.w.team(input["teamId"])
        if input["type"] not in STATE_TYPES:
            raise LinearFault(
                f"Argument Validation Error: type must be one of {', '.join(STATE_TYPES)}"
            )
        position = input.get("position")
        if position is None:
            position = max((s.position for s in team.state_list), default=0.0) + 1
        state = WorkflowState(
            self.w.new_id(input.get("id")),
            input["name"],
            input["type"],
            float(position),
            input["color"],
            team,
        )
        team.state_list.append(state)
        return {"success": True, "workflowState": state, "lastSyncId": 0}

    def issueCreate(self, info: Any, input: Mapping[str, Any]) -> dict[str, Any]:
        team = self.w.team(input["teamId"])
        if not (input.get("title") or "").strip():
            raise LinearFault("Argument Validation Error: title should not be empty")
        now = self.w.now()
        made = self.w.new_id(input.get("id"))
        issue = Issue(made, team, 0, input["title"], _default_state(team), now, now)
        try:
            self._apply(issue, {k: v for k, v in input.items() if k not in ("id", "teamId")})
        except LinearFault:
            self.w.ids.discard(made)  # a refused create leaves no trace, nor a number
            raise
        issue.number = next(team.counter)
        team.issue_list.append(issue)
        self.w.issues[issue.id] = issue
        return {"success": True, "issue": issue, "lastSyncId": 0}

    def issueUpdate(self, info: Any, id: str, input: Mapping[str, Any]) -> dict[str, Any]:
        issue = self.w.issue(id)
        self._apply(issue, input)
        issue.updatedAt = self.w.now()
        return {"success": True, "issue": issue, "lastSyncId": 0}

    def issueArchive(self, info: Any, id: str, trash: bool | None = None) -> dict[str, Any]:
        issue = self.w.issue(id)
        issue.archivedAt = issue.archivedAt or self.w.now()
        return {"success": True, "entity": issue, "lastSyncId": 0}

    def issueUnarchive(self, info: Any, id: str) -> dict[str, Any]:
        issue = self.w.issue(id)
        issue.archivedAt = None
        return {"success": True, "entity": issue, "lastSyncId": 0}

    def commentCreate(self, info: Any, input: Mapping[str, Any]) -> dict[str, Any]:
        if not input.get("issueId"):
            raise LinearFault("Argument Validation Error: issueId is required")
        issue = self.w.issue(input["issueId"])
        if not (input.get("body") or "").strip():
            raise LinearFault("Argument Validation Error: body should not be empty")
        now = self.w.now()
        comment = Comment(
            self.w.new_id(input.get("id")), input["body"], issue, info.context["user"], now, now
        )
        issue.comment_list.append(comment)
        self.w.comments[comment.id] = comment
        return {"success": True, "comment": comment, "lastSyncId": 0}

    def issueRelationCreate(
        self, info: Any, input: Mapping[str, Any], overrideCreatedAt: str | None = None
    ) -> dict[str, Any]:
        issue = self.w.issue(input["issueId"])
        related = self.w.issue(input["relatedIssueId"])
        kind = input["type"]
        if issue is related:
            raise LinearFault(
                "Argument Validation Error: an issue cannot relate to itself",
                shown="An issue cannot be related to itself.",
            )
        if any(r.type == kind and r.relatedIssue is related for r in issue.relation_list):
            raise LinearFault(
                "Relation already exists", shown="These issues are already related this way."
            )
        if kind == "blocks" and self.refuse_cycles and _blocks(related, issue):
            raise LinearFault(
                "Blocking relations cannot form a cycle",
                shown="This relation would make the issues block each other.",
            )
        relation = IssueRelation(self.w.new_id(input.get("id")), kind, issue, related)
        issue.relation_list.append(relation)
        related.inverse_list.append(relation)
        self.w.relations[relation.id] = relation
        return {"success": True, "issueRelation": relation, "lastSyncId": 0}

    def issueRelationDelete(self, info: Any, id: str) -> dict[str, Any]:
        relation = self.w.relations.pop(id, None)
        if relation is None:
            raise not_found("IssueRelation")
        relation.issue.relation_list.remove(relation)
        relation.relatedIssue.inverse_list.remove(relation)
        return {"success": True, "entityId": id, "lastSyncId": 0}

    def issueLabelCreate(
        self, info: Any, input: Mapping[str, Any], replaceTeamLabels: bool | None = None
    ) -> dict[str, Any]:
        team = self.w.team(input["teamId"]) if input.get("teamId") else None
        siblings = team.label_list if team is not None else self.w.labels
        name = input["name"]
        if any(label.name.lower() == name.lower() for label in [*siblings, *self.w.labels]):
            raise LinearFault("Label name already exists", shown=f'A label "{name}" exists.')
        label = IssueLabel(
            self.w.new_id(input.get("id")), name, input.get("color") or "#bec2c8", team
        )
        siblings.append(label)
        return {"success": True, "issueLabel": label, "lastSyncId": 0}

    # -- the rules of an issue's fields ------------------------------------------------------

    def _state_for(self, team: Team, ref: str | None) -> WorkflowState:
        if ref is None:
            raise LinearFault("Argument Validation Error: stateId should not be null")
        state = self.w.state(ref)
        if state.team is not team:
            raise LinearFault(
                "Invalid input: the workflow state does not belong to the issue's team",
                shown="The status must belong to the issue's team.",
            )
        return state

    def _apply(self, issue: Issue, input: Mapping[str, Any]) -> None:
        """Check every field first, then set them: a refused update changes nothing."""
        changes: dict[str, Any] = {}
        for key, value in input.items():
            if key == "stateId":
                changes["state"] = self._state_for(issue.team, value)
            elif key == "estimate":
                if value is not None and value not in issue.team.estimates():
                    raise LinearFault(
                        f"Invalid estimate {value} for the team's "
                        f"{issue.team.issueEstimationType} scale",
                        shown="The estimate is not on the team's estimate scale.",
                    )
                changes["estimate"] = value
            elif key == "priority":
                if value is not None and value not in range(5):
                    raise LinearFault("Argument Validation Error: priority must be 0 to 4")
                changes["priority"] = value or 0
            elif key == "parentId":
                changes["parent"] = self._parent_for(issue, value)
            elif key in ("labelIds", "addedLabelIds", "removedLabelIds"):
                labels = [self._label_for(issue.team, ref) for ref in value or ()]
                current = changes.get("label_list", issue.label_list)
                if key == "labelIds":
                    current = labels
                elif key == "addedLabelIds":
                    current = [*current, *(lb for lb in labels if lb not in current)]
                else:
                    current = [lb for lb in current if lb not in labels]
                changes["label_list"] = current
            elif key == "assigneeId":
                changes["assignee"] = self.w.user(value) if value else None
            elif key in ("title", "description"):
                if key == "title" and not (value or "").strip():
                    raise LinearFault("Argument Validation Error: title should not be empty")
                changes[key] = value
            else:
                raise LinearFault(f"The fake does not model the issue input {key!r}")
        if "parent" in changes and issue.parent is not changes["parent"]:
            if issue.parent is not None:
                issue.parent.child_list.remove(issue)
            if changes["parent"] is not None:
                changes["parent"].child_list.append(issue)
        for name, value in changes.items():
            setattr(issue, name, value)

    def _parent_for(self, issue: Issue, ref: str | None) -> Issue | None:
        if ref is None:
            return None
        parent = self.w.issue(ref)
        ancestor: Issue | None = parent
        while ancestor is not None:
            if ancestor is issue:
                raise LinearFault(
                    "Invalid input: an issue cannot be its own ancestor",
                    shown="An issue cannot be a sub-issue of itself or its sub-issues.",
                )
            ancestor = ancestor.parent
        return parent

    def _label_for(self, team: Team, ref: str) -> IssueLabel:
        label = self.w.label(ref)
        if label.team is not None and label.team is not team:
            raise LinearFault(
                "Invalid input: the label belongs to another team",
                shown="The label must belong to the issue's team or the workspace.",
            )
        return label


def _default_state(team: Team) -> WorkflowState:
    """Where a new issue starts when no state is named: the team's first backlog state,
    else its first unstarted one."""
    for kind in ("backlog", "unstarted", "triage"):
        states = sorted((s for s in team.state_list if s.type == kind), key=lambda s: s.position)
        if states:
            return states[0]
    raise LinearFault("Team has no workflow state to start an issue in")


def _blocks(start: Issue, target: Issue) -> bool:
    """Whether ``start`` blocks ``target``, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        issue = todo.pop()
        if issue is target:
            return True
        if issue.id in seen:
            continue
        seen.add(issue.id)
        todo.extend(r.relatedIssue for r in issue.relation_list if r.type == "blocks")
    return False
