"""The fake's query and mutation roots: what each top-level field and mutation does to
the in-memory world, with GitHub's own refusals (NOT_FOUND, UNPROCESSABLE...)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from ralph.github.fake._board import BoardRoot
from ralph.github.fake._limits import ContentThrottle
from ralph.github.fake._model import (
    Account,
    Comment,
    Field,
    GraphQLFault,
    Issue,
    Item,
    Label,
    ProjectV2,
    Repository,
    StatusUpdate,
    World,
)
from ralph.github.fake._pull_root import PullRequestMutations, check_body, check_title
from ralph.github.fake._pulls import PullRequest
from ralph.github.fake._workflows import status_set

__all__ = ["Root"]


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


#: GitHub's documented sub-issue limits: per parent (closed ones count), and levels.
_MOST_SUB_ISSUES = 100
_MOST_LEVELS = 8


def _check_room(parent: Issue, child: Issue | None = None) -> None:
    """Refuse a child the parent cannot take (wording of ours: GitHub's is not known)."""
    if len(parent.children) >= _MOST_SUB_ISSUES:
        raise _invalid(f"Parent cannot have more than {_MOST_SUB_ISSUES} sub-issues")
    levels, above = 1, parent.parent
    while above is not None:
        levels, above = levels + 1, above.parent
    below, layer = 1, [child] if child is not None else []
    while layer:
        layer = [c for issue in layer for c in issue.children]
        below += bool(layer)
    if levels + below > _MOST_LEVELS:
        raise _invalid(f"Sub-issues cannot be nested more than {_MOST_LEVELS} levels")


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _check_status_update(input: dict[str, Any]) -> None:
    """GitHub's Date is ISO 8601 (``YYYY-MM-DD``); its bodies have the issue limit."""
    check_body(input.get("body"))
    for name in ("startDate", "targetDate"):
        value = input.get(name)
        if value is None:
            continue
        try:
            if not _DATE.fullmatch(str(value)):
                raise ValueError(value)
            date.fromisoformat(str(value))
        except ValueError:
            raise _invalid(f"{name} is not a valid date") from None


class Root(PullRequestMutations, BoardRoot):
    """Query and Mutation fields by their schema names (the mixins: pull requests, boards)."""

    def __init__(self, world: World) -> None:
        self.world = world
        #: GitHub's content-creation throttle, when a test turns it on.
        self.throttle: ContentThrottle | None = None

    def _creating(self) -> None:
        """Content is about to be created: refused if it comes too quickly."""
        if self.throttle is not None:
            self.throttle.spend()

    # -- queries --------------------------------------------------------------------------

    def viewer(self, info: Any) -> Account:
        return self.world.account(info.context["login"])

    def repository(self, info: Any, owner: str, name: str, **_: Any) -> Repository:
        found = self.world.repositories.get(f"{owner}/{name}".lower())
        if found is None or found.hidden_from(info):
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
            )
        return found

    def repositoryOwner(self, info: Any, login: str) -> Account | None:
        found = self.world.accounts.get(login)
        if found is None:
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a User with the login of '{login}'."
            )
        return found

    def user(self, info: Any, login: str) -> Account:
        found = self.world.accounts.get(login)
        if found is None or found.typename != "User":
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a User with the login of '{login}'."
            )
        return found

    def node(self, info: Any, id: str) -> Any:
        return self.world.nodes.get(id)

    def nodes(self, info: Any, ids: list[str]) -> list[Any]:
        return [self.world.nodes.get(node_id) for node_id in ids]

    # -- issues -----------------------------------------------------------------------------

    def _issue(self, node_id: str) -> Issue:
        found: Issue = self.world.node_of(node_id, Issue)
        return found

    def createIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.world.need_scope(info, "repo", "public_repo")
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        if repository.isArchived:
            raise _invalid("Repository was archived so is read-only.")
        if not repository.hasIssuesEnabled:
            raise _invalid("Issues are disabled for this repo")
        if not input["title"].strip():
            raise _invalid("Title can't be blank")
        check_title(input["title"])
        check_body(input.get("body"))
        self._creating()
        parent = self._issue(input["parentIssueId"]) if input.get("parentIssueId") else None
        if parent is not None:
            _check_room(parent)
        issue = Issue(
            repository,
            repository.next_number(),
            input["title"],
            input.get("body") or "",
            info.context["login"],
        )
        issue.label_list = [self.world.node_of(i, Label) for i in input.get("labelIds") or []]
        repository.issue_list.append(issue)
        if parent is not None:
            issue.parent = parent
            parent.children.append(issue)
        return {"issue": issue}

    def updateIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["id"])
        # GraphQL tells an explicit null from an absent key, and so does GitHub: a null
        # title is refused, a null body empties the body.
        if "title" in input:
            if not (input["title"] or "").strip():
                raise _invalid("Title can't be blank")
            check_title(input["title"])
            issue.title = input["title"]
        if "body" in input:
            check_body(input["body"])
            issue.body = input["body"] or ""
        if input.get("labelIds") is not None:
            issue.label_list = [self.world.node_of(i, Label) for i in input["labelIds"]]
        issue.touch()
        return {"issue": issue}

    def addLabelsToLabelable(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["labelableId"])
        added = [self.world.node_of(i, Label) for i in input["labelIds"]]
        issue.label_list += [label for label in added if label not in issue.label_list]
        issue.touch()
        return {"labelable": issue, "clientMutationId": input.get("clientMutationId")}

    def removeLabelsFromLabelable(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["labelableId"])
        removed = [self.world.node_of(i, Label) for i in input["labelIds"]]
        issue.label_list = [label for label in issue.label_list if label not in removed]
        issue.touch()
        return {"labelable": issue, "clientMutationId": input.get("clientMutationId")}

    def createLabel(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        if any(label.name.lower() == input["name"].lower() for label in repository.label_list):
            raise _invalid("Name has already been taken")
        label = Label(self.world, input["name"], input["color"])
        repository.label_list.append(label)
        return {"label": label}

    def closeIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["issueId"])
        if input.get("duplicateIssueId"):
            issue.duplicate_of = self._issue(input["duplicateIssueId"])
        issue.close(input.get("stateReason") or "COMPLETED")
        return {"issue": issue}

    def reopenIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["issueId"])
        issue.state = "OPEN"
        issue.stateReason = "REOPENED"
        issue.closedAt = None
        issue.touch()
        return {"issue": issue}

    def addComment(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["subjectId"])
        if not input["body"].strip():
            raise _invalid("Body can't be blank")
        check_body(input["body"])
        self._creating()
        comment = Comment(self.world, info.context["login"], input["body"])
        issue.comment_list.append(comment)
        issue.touch()
        return {"commentEdge": {"node": comment}, "subject": issue}

    def deleteIssueComment(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        comment: Comment = self.world.node_of(input["id"], Comment)
        for issue in [n for n in self.world.nodes.values() if isinstance(n, Issue)]:
            if comment in issue.comment_list:
                issue.comment_list.remove(comment)
                issue.touch()
        del self.world.nodes[comment.id]
        return {"clientMutationId": input.get("clientMutationId")}

    def addSubIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        parent = self._issue(input["issueId"])
        child = self._issue(input["subIssueId"])
        if child.parent is not None and child.parent is not parent:
            if not input.get("replaceParent"):
                raise _invalid("Sub issue may only have one parent")
            child.parent.children.remove(child)
        ancestor: Issue | None = parent
        while ancestor is not None:
            if ancestor is child:
                raise _invalid("Sub issue cannot be an ancestor of its parent")
            ancestor = ancestor.parent
        if child not in parent.children:
            _check_room(parent, child)
            parent.children.append(child)
        child.parent = parent
        parent.touch()
        return {"issue": parent, "subIssue": child}

    def removeSubIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        parent = self._issue(input["issueId"])
        child = self._issue(input["subIssueId"])
        if child not in parent.children:
            raise _invalid("Sub issue is not a sub-issue of this issue")
        parent.children.remove(child)
        child.parent = None
        return {"issue": parent, "subIssue": child}

    def addBlockedBy(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["issueId"])
        blocking = self._issue(input["blockingIssueId"])
        if blocking is issue:
            raise _invalid("An issue cannot block itself")
        if blocking not in issue.blocked_by:
            issue.blocked_by.append(blocking)
        issue.touch()
        return {"issue": issue, "blockingIssue": blocking}

    def removeBlockedBy(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        issue = self._issue(input["issueId"])
        blocking = self._issue(input["blockingIssueId"])
        if blocking in issue.blocked_by:
            issue.blocked_by.remove(blocking)
        issue.touch()
        return {"issue": issue, "blockingIssue": blocking}

    # -- projects ---------------------------------------------------------------------------

    def _project(self, info: Any, project_id: str) -> ProjectV2:
        self.world.need_scope(info, "project")
        found: ProjectV2 = self.world.node_of(project_id, ProjectV2)
        return found

    def addProjectV2ItemById(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        content = self.world.nodes.get(input["contentId"])
        if not isinstance(content, Issue | PullRequest) or content.repository.hidden_from(info):
            raise GraphQLFault("NOT_FOUND", "Could not resolve to a node with the given content id")
        existing = next((i for i in project.item_list if i.content is content), None)
        if existing is not None:  # idempotent, as GitHub documents
            return {"item": existing}
        item = Item(project, content)
        project.item_list.append(item)
        if isinstance(content, Issue):
            content.items.append(item)
        return {"item": item}

    def _item_field(self, info: Any, input: dict[str, Any]) -> tuple[Item, Field]:
        project = self._project(info, input["projectId"])
        item: Item = self.world.node_of(input["itemId"], Item)
        field_: Field = self.world.node_of(input["fieldId"], Field)
        if item.project is not project or field_.project is not project:
            raise _invalid("The item or the field does not belong to this project")
        return item, field_

    def updateProjectV2ItemFieldValue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        item, field_ = self._item_field(info, input)
        option = input["value"].get("singleSelectOptionId")
        if not field_.single_select or option not in {o["id"] for o in field_.option_list}:
            raise _invalid(
                f"The single select option Id does not belong to the field {field_.name}"
            )
        item.values[field_.id] = option
        if isinstance(item.content, Issue):
            item.content.touch()
        if field_.name == "Status":
            status_set(item, next(o["name"] for o in field_.option_list if o["id"] == option))
        return {"projectV2Item": item}

    def createProjectV2(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.world.need_scope(info, "project")
        owner: Account = self.world.node_of(input["ownerId"], Account)
        if owner.typename == "User" and not info.context["kind"].reaches_user_boards:
            raise GraphQLFault("FORBIDDEN", "Resource not accessible by personal access token")
        project = ProjectV2(owner, len(owner.projects) + 1, input["title"])
        owner.projects.append(project)
        if input.get("repositoryId"):
            project.linked.append(self.world.node_of(input["repositoryId"], Repository))
        return {"projectV2": project}

    def createProjectV2Field(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        if any(f.name.lower() == input["name"].lower() for f in project.field_list):
            raise _invalid("Name has already been taken")
        options = input.get("singleSelectOptions")
        if input["dataType"] == "SINGLE_SELECT" and not options:
            raise _invalid("Single select fields need at least one option")
        field_ = Field(project, input["name"], options or [])
        project.field_list.append(field_)
        return {"projectV2Field": field_}

    def updateProjectV2Field(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.world.need_scope(info, "project")
        field_: Field = self.world.node_of(input["fieldId"], Field)
        if input.get("singleSelectOptions") is not None:
            field_.set_options(input["singleSelectOptions"])
        if input.get("name"):
            field_.name = input["name"]
        return {"projectV2Field": field_}

    def _project_item(self, info: Any, input: dict[str, Any]) -> Item:
        project = self._project(info, input["projectId"])
        item: Item = self.world.node_of(input["itemId"], Item)
        if item.project is not project:
            raise _invalid("The item does not belong to this project")
        return item

    def archiveProjectV2Item(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        item = self._project_item(info, input)
        item.isArchived = True
        return {"item": item}

    def unarchiveProjectV2Item(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        item = self._project_item(info, input)
        item.isArchived = False
        return {"item": item}

    def createProjectV2StatusUpdate(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        _check_status_update(input)
        self._creating()
        update = StatusUpdate(project, info.context["login"], input)
        project.status_update_list.append(update)
        return {"statusUpdate": update}

    def _status_update(self, info: Any, update_id: str) -> StatusUpdate:
        self.world.need_scope(info, "project")
        found: StatusUpdate = self.world.node_of(update_id, StatusUpdate)
        if found not in found.project.status_update_list:
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{update_id}'"
            )
        return found

    def updateProjectV2StatusUpdate(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        update = self._status_update(info, input["statusUpdateId"])
        _check_status_update(input)
        update.update(input)
        return {"statusUpdate": update}

    def deleteProjectV2StatusUpdate(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        update = self._status_update(info, input["statusUpdateId"])
        update.project.status_update_list.remove(update)
        del self.world.nodes[update.id]
        return {"deletedStatusUpdateId": update.id, "projectV2": update.project}

    def linkProjectV2ToRepository(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        if repository not in project.linked:
            project.linked.append(repository)
        return {"repository": repository}
