"""The fake's board management: drafts, views, teams, and the Projects V2 mutations of
the original's project-management tools, with GitHub's refusals where it has them."""

from __future__ import annotations

from typing import Any

from ralph.github.fake._model import (
    Account,
    Field,
    GraphQLFault,
    Issue,
    Item,
    Node,
    ProjectV2,
    Repository,
    World,
    _iso,
    connection,
)

__all__ = ["BoardRoot", "DraftIssue", "Team", "View"]


def _invalid(message: str) -> GraphQLFault:
    return GraphQLFault("UNPROCESSABLE", message)


class DraftIssue(Node):
    typename = "DraftIssue"

    def __init__(self, world: World, title: str, body: str) -> None:
        super().__init__(world, "DI_")
        self.title = title
        self.body = body
        self.createdAt = self.updatedAt = _iso(world.clock())

    def assignees(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection([], **page)


class View(Node):
    typename = "ProjectV2View"

    def __init__(self, project: ProjectV2, name: str, layout: str, filter: str) -> None:
        super().__init__(project.world, "PVTV_")
        self.project = project
        self.number = len(project.view_list) + 1
        self.name = name
        self.layout = layout
        self.filter = filter
        self.createdAt = self.updatedAt = _iso(project.world.clock())


class Team(Node):
    typename = "Team"

    def __init__(self, organization: Account, slug: str) -> None:
        super().__init__(organization.world, "T_")
        self.organization = organization
        self.slug = slug
        self.name = slug


class BoardRoot:
    """Query and Mutation fields of board management (mixed into the fake's Root)."""

    world: World

    def _project(self, info: Any, project_id: str) -> ProjectV2:
        raise NotImplementedError  # Root's

    def _item(self, info: Any, input: dict[str, Any]) -> tuple[ProjectV2, Item]:
        project = self._project(info, input["projectId"])
        item: Item = self.world.node_of(input["itemId"], Item)
        if item.project is not project:
            raise _invalid("The item does not belong to this project")
        return project, item

    # -- queries ----------------------------------------------------------------------------

    def user(self, info: Any, login: str) -> Account | None:
        found = self.world.accounts.get(login)
        if found is None or found.typename != "User":
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to a User with the login of '{login}'."
            )
        return found

    def organization(self, info: Any, login: str) -> Account | None:
        found = self.world.accounts.get(login)
        if found is None or found.typename != "Organization":
            raise GraphQLFault(
                "NOT_FOUND", f"Could not resolve to an Organization with the login of '{login}'."
            )
        return found

    # -- the project ------------------------------------------------------------------------

    def updateProjectV2(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        if "title" in input:
            if not (input["title"] or "").strip():
                raise _invalid("Title can't be blank")
            project.title = input["title"]
        for name in ("shortDescription", "readme"):
            if name in input:
                setattr(project, name, input[name])
        for name in ("public", "closed"):
            if input.get(name) is not None:
                setattr(project, name, bool(input[name]))
        return {"projectV2": project}

    def copyProjectV2(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        source = self._project(info, input["projectId"])
        owner: Account = self.world.node_of(input["ownerId"], Account)
        copy = ProjectV2(owner, len(owner.projects) + 1, input["title"])
        owner.projects.append(copy)
        copy.shortDescription, copy.readme = source.shortDescription, source.readme
        for field_ in source.field_list:
            if field_.name in {f.name for f in copy.field_list}:
                continue
            options = field_.option_list if field_.single_select else None
            copy.field_list.append(Field(copy, field_.name, options))
        for view in source.view_list:
            copy.view_list.append(View(copy, view.name, view.layout, view.filter))
        if input.get("includeDraftIssues"):
            for item in source.item_list:
                if isinstance(item.content, DraftIssue):
                    draft = DraftIssue(self.world, item.content.title, item.content.body)
                    copy.item_list.append(Item(copy, draft))
        return {"projectV2": copy}

    # -- items ------------------------------------------------------------------------------

    def deleteProjectV2Item(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project, item = self._item(info, input)
        project.item_list.remove(item)
        if isinstance(item.content, Issue):
            item.content.items.remove(item)
        self.world.nodes.pop(item.id, None)
        return {"deletedItemId": item.id}

    def clearProjectV2ItemFieldValue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project, item = self._item(info, input)
        field_: Field = self.world.node_of(input["fieldId"], Field)
        if field_.project is not project:
            raise _invalid("The field does not belong to this project")
        item.values.pop(field_.id, None)
        item.updatedAt = _iso(self.world.clock())
        return {"projectV2Item": item}

    def addProjectV2DraftIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        if not input["title"].strip():
            raise _invalid("Title can't be blank")
        self._creating()
        draft = DraftIssue(self.world, input["title"], input.get("body") or "")
        item = Item(project, draft)
        project.item_list.append(item)
        return {"projectItem": item}

    def _creating(self) -> None:
        raise NotImplementedError  # Root's

    def updateProjectV2DraftIssue(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.world.need_scope(info, "project")
        draft: DraftIssue = self.world.node_of(input["draftIssueId"], DraftIssue)
        if "title" in input:
            if not (input["title"] or "").strip():
                raise _invalid("Title can't be blank")
            draft.title = input["title"]
        if "body" in input:
            draft.body = input["body"] or ""
        draft.updatedAt = _iso(self.world.clock())
        return {"draftIssue": draft}

    def convertProjectV2DraftIssueItemToIssue(
        self, info: Any, input: dict[str, Any]
    ) -> dict[str, Any]:
        self.world.need_scope(info, "project")
        item: Item = self.world.node_of(input["itemId"], Item)
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        if not isinstance(item.content, DraftIssue):
            raise _invalid("The item is not a draft issue")
        self._creating()
        draft = item.content
        issue = Issue(
            repository, repository.next_number(), draft.title, draft.body, info.context["login"]
        )
        repository.issue_list.append(issue)
        item.content, item.type = issue, "ISSUE"
        issue.items.append(item)
        self.world.nodes.pop(draft.id, None)
        return {"item": item}

    def updateProjectV2ItemPosition(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project, item = self._item(info, input)
        after: Item | None = None
        if input.get("afterId"):
            after = self.world.node_of(input["afterId"], Item)
            if after.project is not project:
                raise _invalid("The item to move after does not belong to this project")
        project.item_list.remove(item)
        place = 0 if after is None or after is item else project.item_list.index(after) + 1
        project.item_list.insert(place, item)
        return {"items": lambda info, **page: connection(project.item_list, **page)}

    # -- fields and links -----------------------------------------------------------------------

    def deleteProjectV2Field(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.world.need_scope(info, "project")
        field_: Field = self.world.node_of(input["fieldId"], Field)
        if field_.name in ("Title", "Status"):
            raise _invalid(f"The {field_.name} field cannot be deleted")
        field_.project.field_list.remove(field_)
        for item in field_.project.item_list:
            item.values.pop(field_.id, None)
        return {"projectV2Field": field_}

    def unlinkProjectV2FromRepository(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        repository: Repository = self.world.node_of(input["repositoryId"], Repository)
        if repository in project.linked:
            project.linked.remove(repository)
        return {"repository": repository}

    def updateProjectV2Collaborators(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project = self._project(info, input["projectId"])
        for entry in input["collaborators"]:
            who = self.world.node_of(entry.get("userId") or entry.get("teamId") or "", Node)
            if isinstance(who, Team) and project.owner is not who.organization:
                raise _invalid("Teams can only be added to projects of their organization")
            key = who.slug if isinstance(who, Team) else who.login
            if entry["role"] == "NONE":
                project.collaborators.pop(key, None)
            else:
                project.collaborators[key] = entry["role"]
        shown = list(project.collaborators)
        return {"collaborators": lambda info, **page: connection(shown, **page)}

    def _team(self, info: Any, input: dict[str, Any]) -> tuple[ProjectV2, Team]:
        project = self._project(info, input["projectId"])
        team: Team = self.world.node_of(input["teamId"], Team)
        if project.owner is not team.organization:
            raise _invalid("Teams can only be linked to projects of their organization")
        return project, team

    def linkProjectV2ToTeam(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project, team = self._team(info, input)
        if team not in project.teams:
            project.teams.append(team)
        return {"team": team}

    def unlinkProjectV2FromTeam(self, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        project, team = self._team(info, input)
        if team in project.teams:
            project.teams.remove(team)
        return {"team": team}
