"""A GitHub Projects V2 board managed as a board: the original's project-management
tools over GraphQL (every document in ``github/queries.py``, validated against GitHub's
schema). Everything on the board goes with the board's token.

Replacing a single-select field's options gives every option a new id, which clears the
field on every item (``updateProjectV2Field``), so Ralph's own fields and Status are
never given new options here, as ``ralph init`` never does it either.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ralph._text import one_line
from ralph.errors import GitHubNotFound, InvalidInput, IssueNotFound
from ralph.github import marker
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, WORKFLOW_STATE
from ralph.tracker._project_board import (
    PROTECTED_FIELDS,
    BoardItem,
    Collaborator,
    FieldOption,
    ItemType,
    Membership,
    ProjectBoard,
    ProjectField,
    ProjectInfo,
    ProjectView,
)
from ralph.tracker.github._board import set_up_board
from ralph.tracker.github._read import board_item_from, option_name, project_info_from
from ralph.workflow import Estimate, Priority, WorkflowState

if TYPE_CHECKING:
    from ralph.tracker.github._tracker import GitHubTracker

__all__ = ["OPTION_COLOURS", "GitHubProjectBoard"]

#: GitHub's ProjectV2SingleSelectFieldOptionColor.
OPTION_COLOURS = ("GRAY", "BLUE", "GREEN", "YELLOW", "ORANGE", "RED", "PINK", "PURPLE")
_ROLES = ("READER", "WRITER", "ADMIN", "NONE")
_REPOSITORY = re.compile(r"^(?:([A-Za-z0-9-]+)/)?([A-Za-z0-9._-]+)$")


class GitHubProjectBoard(ProjectBoard):
    kind = "github"

    def __init__(self, tracker: GitHubTracker) -> None:
        self.tracker = tracker
        self.client = tracker.client

    @property
    def _project_id(self) -> str:
        return self.tracker.board().project_id

    def _query(self, document: q.GraphQLDocument, variables: Mapping[str, Any]) -> Any:
        return self.client.query(document, variables, token="board")

    def _mutate(
        self, document: q.GraphQLDocument, variables: Mapping[str, Any], **kwargs: Any
    ) -> Any:
        return self.client.mutate(document, variables, token="board", **kwargs)

    # -- the project ------------------------------------------------------------------------

    def _board(self, owner: str, number: int) -> ProjectInfo:
        try:
            data = self._query(q.BOARD, {"login": owner, "number": number})
        except GitHubNotFound:
            data = {}
        node = (data.get("repositoryOwner") or {}).get("projectV2")
        if not node:
            raise InvalidInput(f"project #{number} of {owner} not found; check its number")
        return project_info_from(node)

    def info(self) -> ProjectInfo:
        return self._board(self.tracker.project_owner, self.tracker.project_number)

    def project(self, number: int, *, owner: str | None = None) -> ProjectInfo:
        return self._board(owner or self.tracker.project_owner, number)

    def projects(
        self, *, state: str = "open", limit: int = 50, owner: str | None = None
    ) -> list[ProjectInfo]:
        found: list[ProjectInfo] = []
        login = owner or self.tracker.project_owner
        for node in self.client.pages(
            q.BOARDS, {"login": login}, ("repositoryOwner", "projectsV2"), token="board"
        ):
            board = project_info_from(node)
            if state == "all" or board.closed == (state == "closed"):
                found.append(board)
            if len(found) >= limit:
                break
        return found

    def _update(
        self,
        title: str | None,
        short_description: str | None,
        readme: str | None,
        public: bool | None,
        closed: bool | None,
    ) -> ProjectInfo:
        self._mutate(
            q.UPDATE_BOARD,
            q.input_of(
                projectId=self._project_id,
                title=title,
                shortDescription=short_description,
                readme=readme,
                public=public,
                closed=closed,
            ),
        )
        self.tracker.invalidate_board()
        return self.info()

    def _set_up(self, owner: str, title: str, template: int | None) -> ProjectInfo:
        number = None
        if template is not None:
            number = self._copy(template, title, owner, owner, False).number
        made = set_up_board(
            self.client, self.tracker.full_name, project=number, project_owner=owner, title=title
        )
        return self._board(made.owner, made.board.number)

    def _copy(
        self, source: int, title: str, source_owner: str, owner: str, include_drafts: bool
    ) -> ProjectInfo:
        original = self._board(source_owner, source)
        owner_id = self._query(q.OWNER, {"login": owner})["repositoryOwner"]["id"]
        data = self._mutate(
            q.COPY_BOARD,
            q.input_of(
                projectId=original.id,
                ownerId=owner_id,
                title=title,
                includeDraftIssues=include_drafts,
            ),
        )
        return self._board(owner, int(data["copyProjectV2"]["projectV2"]["number"]))

    # -- items ------------------------------------------------------------------------------

    def _raw_items(self) -> list[dict[str, Any]]:
        return list(
            self.client.pages(
                q.BOARD_ITEMS, {"project": self._project_id}, ("node", "items"), token="board"
            )
        )

    def items(self) -> list[BoardItem]:
        return [item for node in self._raw_items() if (item := board_item_from(node)) is not None]

    def _content_id(self, number: int) -> tuple[str, ItemType]:
        try:
            data = self.client.query(q.CONTENT_ID, {**self.tracker.where, "number": number})
        except GitHubNotFound:
            data = {}
        found = (data.get("repository") or {}).get("issueOrPullRequest")
        if not found:
            raise IssueNotFound(number, self.tracker.full_name)
        kind = ItemType.ISSUE if found["__typename"] == "Issue" else ItemType.PULL_REQUEST
        return found["id"], kind

    def add_item(self, number: int) -> BoardItem:
        content_id, kind = self._content_id(number)
        data = self._mutate(
            q.ADD_PROJECT_ITEM, q.input_of(projectId=self._project_id, contentId=content_id)
        )
        item_id = data["addProjectV2ItemById"]["item"]["id"]
        if kind is ItemType.ISSUE:
            self.tracker.remember_item(number, item_id)
        found = next((i for i in self.items() if i.id == item_id), None)
        return found or BoardItem(id=item_id, type=kind, title="", number=number)

    def item_of(self, number: int) -> BoardItem:
        item_id = self.tracker.item_id(number)
        found = next((i for i in self.items() if i.id == item_id), None)
        return found or BoardItem(id=item_id, type=ItemType.ISSUE, title="", number=number)

    def item_id_on_board(self, number: int) -> str:
        """The item of issue ``number`` on the board, without adding it."""
        found = self.tracker.existing_item_id(number)
        if found is None:
            raise InvalidInput(
                f"#{number} is not on project #{self.tracker.project_number}; add it with "
                "add_to_project first"
            )
        return found

    def remove_item(self, item_id: str) -> None:
        self._mutate(q.DELETE_ITEM, q.input_of(projectId=self._project_id, itemId=item_id))
        self.tracker.forget_item(item_id)

    def _field(self, name: str) -> ProjectField:
        board = self.info()
        found = board.field(name)
        if found is None:
            names = ", ".join(f.name for f in board.fields)
            raise InvalidInput(f'project #{board.number} has no field "{name}"; it has {names}')
        return found

    def clear_field(self, number: int, field: str) -> None:
        if field == WORKFLOW_STATE:
            raise InvalidInput(
                "Workflow State changes go through the workflow (each one audited); move "
                "the issue with update_workflow_state instead"
            )
        found = self._field(field)
        self._mutate(
            q.CLEAR_FIELD,
            q.input_of(
                projectId=self._project_id, itemId=self.tracker.item_id(number), fieldId=found.id
            ),
        )
        self.tracker.forget_status(number)

    def _add_draft(
        self,
        title: str,
        body: str,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> BoardItem:
        values = {
            WORKFLOW_STATE: state.value if state else None,
            ESTIMATE: estimate.value if estimate else None,
            PRIORITY: priority.value if priority else None,
        }
        wanted = {field: option for field, option in values.items() if option is not None}
        board = self.tracker.board()
        for field, option in wanted.items():  # checked before the draft is made
            if option not in board.fields.get(field, ("", {}))[1]:
                raise InvalidInput(
                    f'"{option}" is not an option of the "{field}" field of project '
                    f"#{board.number}; run ralph doctor"
                )
        tag = marker()

        def already() -> dict[str, Any] | None:
            """The draft, if an answer was lost after GitHub made it (its marker)."""
            for node in self._raw_items():
                content = node.get("content") or {}
                if content.get("__typename") == "DraftIssue" and tag in (content.get("body") or ""):
                    made = {"id": node["id"], "content": {"id": content["id"]}}
                    return {"addProjectV2DraftIssue": {"projectItem": made}}
            return None

        data = self._mutate(
            q.ADD_DRAFT,
            q.input_of(projectId=self._project_id, title=title, body=f"{body}\n\n{tag}".lstrip()),
            reconcile=already,
        )
        made = data["addProjectV2DraftIssue"]["projectItem"]
        draft_id = (made.get("content") or {}).get("id")
        for field, option in wanted.items():
            field_id, options = board.fields[field]
            self._mutate(
                q.SET_FIELD_OPTION,
                q.input_of(
                    projectId=board.project_id,
                    itemId=made["id"],
                    fieldId=field_id,
                    value={"singleSelectOptionId": options[option]},
                ),
            )
        return BoardItem(
            id=made["id"],
            type=ItemType.DRAFT_ISSUE,
            title=title,
            body=body,
            draft_issue_id=draft_id,
            workflow_state=values[WORKFLOW_STATE],
            estimate=values[ESTIMATE],
            priority=values[PRIORITY],
        )

    def _update_draft(self, draft_id: str, title: str | None, body: str | None) -> BoardItem:
        found = next((i for i in self.items() if i.draft_issue_id == draft_id), None)
        if found is None:
            raise InvalidInput(
                f"no draft {draft_id!r} on project #{self.tracker.project_number}; list the "
                "drafts with list_project_items (itemType DRAFT_ISSUE)"
            )
        self._mutate(q.UPDATE_DRAFT, q.input_of(draftIssueId=draft_id, title=title, body=body))
        return next(i for i in self.items() if i.draft_issue_id == draft_id)

    def convert_draft(self, item_id: str) -> BoardItem:
        found = next((i for i in self.items() if i.id == item_id), None)
        if found is None or found.type is not ItemType.DRAFT_ISSUE:
            raise InvalidInput(
                f"{item_id!r} is no draft on project #{self.tracker.project_number}; list the "
                "drafts with list_project_items (itemType DRAFT_ISSUE)"
            )

        def converted() -> dict[str, Any] | None:
            now = next((i for i in self.items() if i.id == item_id), None)
            if now is None or now.type is not ItemType.ISSUE:
                return None
            item = {"id": now.id, "content": {"number": now.number}}
            return {"convertProjectV2DraftIssueItemToIssue": {"item": item}}

        self._mutate(
            q.CONVERT_DRAFT,
            q.input_of(itemId=item_id, repositoryId=self.tracker.repository_id()),
            reconcile=converted,
        )
        return next(i for i in self.items() if i.id == item_id)

    def reorder(self, number: int, after: int | None) -> None:
        if after == number:
            raise InvalidInput(f"#{number} cannot be placed after itself")
        after_id = self.tracker.item_id(after) if after is not None else None
        self._mutate(
            q.MOVE_ITEM,
            q.input_of(
                projectId=self._project_id, itemId=self.tracker.item_id(number), afterId=after_id
            ),
        )

    # -- fields, views, links -----------------------------------------------------------------

    def views(self) -> list[ProjectView]:
        nodes = self.client.pages(
            q.BOARD_VIEWS, {"project": self._project_id}, ("node", "views"), token="board"
        )
        return [
            ProjectView(
                id=n["id"],
                number=n["number"],
                name=one_line(n["name"]),
                layout=n["layout"],
                filter=n.get("filter") or "",
            )
            for n in nodes
        ]

    def _set_field_options(self, field: str, options: Sequence[FieldOption]) -> ProjectField:
        if field in PROTECTED_FIELDS:
            raise InvalidInput(
                f'replacing the options of "{field}" would clear it on every item (GitHub '
                "gives every option a new id); add the options you need on the board instead"
            )
        if not options:
            raise InvalidInput("a single-select field needs at least one option")
        for option in options:
            if option.color not in OPTION_COLOURS:
                raise InvalidInput(
                    f"colour {option.color!r} of option {option.name!r} is not one of "
                    f"{', '.join(OPTION_COLOURS)}"
                )
        found = self._field(field)
        if found.data_type != "SINGLE_SELECT":
            raise InvalidInput(f'"{field}" is a {found.data_type} field, not a single select')
        self._mutate(
            q.UPDATE_FIELD,
            q.input_of(
                fieldId=found.id,
                singleSelectOptions=[
                    {"name": o.name, "color": o.color, "description": o.description}
                    for o in options
                ],
            ),
        )
        self.tracker.invalidate_board()
        updated = self._field(field)
        return updated

    def delete_field(self, field: str) -> None:
        if field in PROTECTED_FIELDS:
            raise InvalidInput(
                f'"{field}" is one of the fields Ralph needs ({", ".join(PROTECTED_FIELDS)}); '
                "it cannot be deleted"
            )
        found = self._field(field)
        self._mutate(q.DELETE_FIELD, q.input_of(fieldId=found.id))
        self.tracker.invalidate_board()

    def repositories(self) -> list[str]:
        data = self._query(q.PROJECT_REPOSITORIES, {"project": self._project_id})
        nodes = ((data.get("node") or {}).get("repositories") or {}).get("nodes", [])
        return [node["nameWithOwner"] for node in nodes]

    def link_repository(self, full_name: str, *, unlink: bool = False) -> bool:
        found = _REPOSITORY.match(full_name)
        if found is None:
            raise InvalidInput(f"{full_name!r} is not a repository name (OWNER/NAME or NAME)")
        owner = found.group(1) or self.tracker.owner
        name = f"{owner}/{found.group(2)}"
        try:
            data = self.client.query(q.REPOSITORY, {"owner": owner, "name": found.group(2)})
        except GitHubNotFound:
            raise InvalidInput(f"repository {name} not found, or the token cannot see it") from None
        repository = data["repository"]
        linked = any(
            n.casefold() == repository["nameWithOwner"].casefold() for n in self.repositories()
        )
        if linked != unlink:
            return False
        document = q.UNLINK_REPOSITORY if unlink else q.LINK_REPOSITORY
        self._mutate(
            document, q.input_of(projectId=self._project_id, repositoryId=repository["id"])
        )
        return True

    def _team_id(self, slug: str) -> str:
        owner = self.tracker.project_owner
        kind = self._query(q.OWNER, {"login": owner})["repositoryOwner"]["__typename"]
        if kind != "Organization":
            raise InvalidInput(
                f"{owner} is a user: teams belong to organisations, and so must the board"
            )
        data = self._query(q.TEAM_ID, {"login": owner, "slug": slug})
        team = (data.get("organization") or {}).get("team")
        if not team:
            raise InvalidInput(f"{owner} has no team {slug!r}")
        return str(team["id"])

    def update_collaborators(self, collaborators: Sequence[Collaborator]) -> None:
        entries: list[dict[str, str]] = []
        for person in collaborators:
            if person.role not in _ROLES:
                raise InvalidInput(f"role {person.role!r} is not one of {', '.join(_ROLES)}")
            if bool(person.login) == bool(person.team):
                raise InvalidInput("give each collaborator a username or a teamSlug, not both")
            if person.team:
                entries.append({"teamId": self._team_id(person.team), "role": person.role})
                continue
            try:
                user = self._query(q.USER_ID, {"login": person.login}).get("user")
            except GitHubNotFound:
                user = None
            if not user:
                raise InvalidInput(f"no GitHub user {person.login!r}")
            entries.append({"userId": user["id"], "role": person.role})
        self._mutate(
            q.UPDATE_COLLABORATORS,
            q.input_of(projectId=self._project_id, collaborators=entries),
        )

    def link_team(self, team: str, *, unlink: bool = False) -> None:
        document = q.UNLINK_TEAM if unlink else q.LINK_TEAM
        self._mutate(document, q.input_of(projectId=self._project_id, teamId=self._team_id(team)))

    # -- other boards the issue is on ----------------------------------------------------------

    def memberships(self, number: int) -> list[Membership]:
        try:
            data = self._query(q.ISSUE_BOARDS, {**self.tracker.where, "number": number})
        except GitHubNotFound:
            data = {}
        issue = (data.get("repository") or {}).get("issue")
        if issue is None:
            raise IssueNotFound(number, self.tracker.full_name)
        return [
            Membership(
                project_id=item["project"]["id"],
                project_number=item["project"]["number"],
                title=one_line(item["project"]["title"]),
                item_id=item["id"],
                workflow_state=option_name(item.get("workflowState")),
            )
            for item in issue["projectItems"]["nodes"]
            if item
        ]

    def set_state_on(self, membership: Membership, state: str) -> str | None:
        """Set Workflow State ``state`` on another board's item; None when done, else
        why not (``no_workflow_state_field``, ``invalid_option: ...``)."""
        data = self._query(q.BOARD_FIELDS, {"project": membership.project_id})
        fields = ((data.get("node") or {}).get("fields") or {}).get("nodes", [])
        field = next((f for f in fields if f and f.get("name") == WORKFLOW_STATE), None)
        if field is None or "options" not in field:
            return "no_workflow_state_field"
        option = next((o for o in field["options"] if o["name"] == state), None)
        if option is None:
            valid = ", ".join(o["name"] for o in field["options"])
            return f"invalid_option: valid options are {valid}"
        self._mutate(
            q.SET_FIELD_OPTION,
            q.input_of(
                projectId=membership.project_id,
                itemId=membership.item_id,
                fieldId=field["id"],
                value={"singleSelectOptionId": option["id"]},
            ),
        )
        return None
