"""The board issues sit on, managed as a board: the project itself (title, description,
open or closed), its fields, views, items (issues, pull requests, drafts) and their
order, the repositories and people linked to it.

Where ``Tracker`` is what the workflow needs, ``ProjectBoard`` is what a person managing
the board needs (the original's project-management tools). GitHub's Projects V2 has all
of it; a local or in-memory board has what makes sense there (drafts are Backlog
issues, views are saved filters, reordering is a position) and refuses the rest with
``NotAvailable``, naming what to use instead.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ralph._text import check_title
from ralph.dashboard import FILTER_PROFILES, FilterFields
from ralph.errors import NotAvailable
from ralph.tracker._model import iso
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = [
    "PROTECTED_FIELDS",
    "BoardItem",
    "Collaborator",
    "FieldOption",
    "ItemType",
    "Membership",
    "ProjectBoard",
    "ProjectField",
    "ProjectInfo",
    "ProjectView",
    "profile_views",
]

#: Fields a board cannot lose: Ralph's three and GitHub's Status, which follows them.
PROTECTED_FIELDS = ("Workflow State", "Priority", "Estimate", "Status")


class ItemType(enum.StrEnum):
    ISSUE = "ISSUE"
    PULL_REQUEST = "PULL_REQUEST"
    DRAFT_ISSUE = "DRAFT_ISSUE"


@dataclass(frozen=True)
class FieldOption:
    id: str
    name: str
    color: str = "GRAY"
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "color": self.color,
            "description": self.description,
        }


@dataclass(frozen=True, kw_only=True)
class ProjectField:
    id: str
    name: str
    #: GitHub's ProjectV2FieldType: SINGLE_SELECT, TEXT, TITLE, ...
    data_type: str
    options: tuple[FieldOption, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "name": self.name, "dataType": self.data_type}
        if self.data_type == "SINGLE_SELECT":
            data["options"] = [option.to_dict() for option in self.options]
        return data


@dataclass(frozen=True, kw_only=True)
class ProjectInfo:
    id: str
    number: int
    title: str
    url: str = ""
    owner: str = ""
    short_description: str = ""
    readme: str = ""
    public: bool = False
    closed: bool = False
    fields: tuple[ProjectField, ...] = ()
    item_count: int = 0
    view_count: int = 0

    def field(self, name: str) -> ProjectField | None:
        return next((f for f in self.fields if f.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "number": self.number,
            "title": self.title,
            "url": self.url,
            "owner": self.owner,
            "shortDescription": self.short_description,
            "readme": self.readme,
            "public": self.public,
            "closed": self.closed,
            "itemCount": self.item_count,
            "viewCount": self.view_count,
            "fieldCount": len(self.fields),
            "fields": [f.to_dict() for f in self.fields],
        }


@dataclass(frozen=True, kw_only=True)
class ProjectView:
    id: str
    number: int
    name: str
    #: GitHub's ProjectV2ViewLayout: TABLE_LAYOUT, BOARD_LAYOUT, ROADMAP_LAYOUT.
    layout: str = "TABLE_LAYOUT"
    filter: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "number": self.number,
            "name": self.name,
            "layout": self.layout,
            "filter": self.filter,
        }


def profile_views() -> tuple[ProjectView, ...]:
    """A board without views of its own (local, memory) shows the filter profiles as
    saved filters, in the filter syntax GitHub's views use."""
    return tuple(
        ProjectView(
            id=f"view:{name}",
            number=index,
            name=name,
            filter=" ".join(f'workflow-state:"{value}"' for value in filters.values()),
        )
        for index, (name, filters) in enumerate(FILTER_PROFILES.items(), 1)
    )


@dataclass(frozen=True, kw_only=True)
class BoardItem:
    """One item of the board: an issue, a pull request or a draft."""

    id: str
    type: ItemType
    title: str
    number: int | None = None
    #: OPEN, CLOSED or MERGED (None for a draft).
    state: str | None = None
    url: str = ""
    body: str = ""
    #: "owner/name" of the issue's or pull request's repository ("" for a draft).
    repository: str = ""
    workflow_state: str | None = None
    estimate: str | None = None
    priority: str | None = None
    labels: tuple[str, ...] = ()
    assignees: tuple[str, ...] = ()
    updated_at: float | None = None
    archived: bool = False
    #: A draft's own id (GitHub's DI_...), which ``update_draft`` takes.
    draft_issue_id: str | None = None

    def filter_fields(self) -> FilterFields:
        return FilterFields(
            workflow_state=self.workflow_state,
            estimate=self.estimate,
            priority=self.priority,
            labels=self.labels,
            assignees=self.assignees,
            updated_at=self.updated_at,
            title=self.title,
            body=self.body,
        )

    def to_dict(self) -> dict[str, Any]:
        owner, _, name = self.repository.partition("/")
        return {
            "itemId": self.id,
            "type": self.type.value,
            "draftIssueId": self.draft_issue_id,
            "number": self.number,
            "title": self.title,
            "state": self.state,
            "url": self.url,
            "updatedAt": iso(self.updated_at),
            "owner": owner or None,
            "repo": name or None,
            "nameWithOwner": self.repository or None,
            "workflowState": self.workflow_state,
            "estimate": self.estimate,
            "priority": self.priority,
            "labels": list(self.labels),
            "assignees": list(self.assignees),
            "isArchived": self.archived,
        }


@dataclass(frozen=True)
class Membership:
    """One board an issue is on: the board, the item, its Workflow State there."""

    project_id: str
    project_number: int
    title: str
    item_id: str
    workflow_state: str | None


@dataclass(frozen=True)
class Collaborator:
    """A user (``login``) or a team (``team``, its slug) and the role to give them:
    READER, WRITER, ADMIN, or NONE to take theirs away."""

    role: str
    login: str = ""
    team: str = ""


#: What to use instead, on a board without something, by operation.
_INSTEAD: Mapping[str, str] = {
    "set_up": "the local board is made by `ralph init`; `ralph init --github OWNER/REPO` "
    "sets up a GitHub board",
    "copy": "copy a GitHub board (tracker = github in ralph.toml)",
    "remove_item": "every issue is on the board; close it (ralph issue close) instead",
    "update_draft": "a draft here is a Backlog issue: use update_issue",
    "convert_draft": "a draft here is already an issue",
    "set_field_options": "its fields are Ralph's own, with fixed options",
    "delete_field": "its fields are Ralph's own, which cannot be deleted",
    "collaborators": "it has no collaborators: everyone with the repository has the board",
    "link_team": "it has no teams",
    "other_projects": "it has one board, this one; leave the project number out",
    "memberships": "it has one board; move the issue with update_workflow_state",
}


class ProjectBoard(abc.ABC):
    """A tracker's board. Reads and the operations every board has are abstract; the
    rest refuse with ``NotAvailable`` unless a board has them."""

    #: "local", "github": named in NotAvailable's message.
    kind: str = ""

    def unavailable(self, operation: str) -> NotAvailable:
        hint = _INSTEAD.get(operation, "use a GitHub board")
        return NotAvailable(f"not available on the {self.kind} tracker: {hint}")

    # -- the project ------------------------------------------------------------------------

    @abc.abstractmethod
    def info(self) -> ProjectInfo:
        """The board this tracker serves, with its fields and counts."""

    @abc.abstractmethod
    def projects(
        self, *, state: str = "open", limit: int = 50, owner: str | None = None
    ) -> list[ProjectInfo]:
        """The boards of ``owner`` (default: the board's): ``state`` open, closed or
        all, by title."""

    def project(self, number: int, *, owner: str | None = None) -> ProjectInfo:
        """Board ``number`` of ``owner`` (default: the board's owner)."""
        board = self.info()
        if number == board.number and owner in (None, board.owner):
            return board
        raise self.unavailable("other_projects")

    def update(
        self,
        *,
        title: str | None = None,
        short_description: str | None = None,
        readme: str | None = None,
        public: bool | None = None,
        closed: bool | None = None,
    ) -> ProjectInfo:
        """Change what is given (None leaves it as it is)."""
        if title is not None:
            check_title(title)
        return self._update(title, short_description, readme, public, closed)

    @abc.abstractmethod
    def _update(
        self,
        title: str | None,
        short_description: str | None,
        readme: str | None,
        public: bool | None,
        closed: bool | None,
    ) -> ProjectInfo: ...

    def set_up(self, owner: str, title: str, *, template: int | None = None) -> ProjectInfo:
        """A new board of ``owner`` with Ralph's fields (copied from board ``template``)."""
        check_title(title)
        return self._set_up(owner, title, template)

    def _set_up(self, owner: str, title: str, template: int | None) -> ProjectInfo:
        raise self.unavailable("set_up")

    def copy(
        self, source: int, title: str, *, source_owner: str, owner: str, include_drafts: bool
    ) -> ProjectInfo:
        check_title(title)
        return self._copy(source, title, source_owner, owner, include_drafts)

    def _copy(
        self, source: int, title: str, source_owner: str, owner: str, include_drafts: bool
    ) -> ProjectInfo:
        raise self.unavailable("copy")

    # -- items ------------------------------------------------------------------------------

    @abc.abstractmethod
    def items(self) -> list[BoardItem]:
        """Every item of the board in its order, archived ones included."""

    @abc.abstractmethod
    def add_item(self, number: int) -> BoardItem:
        """Put issue or pull request ``number`` on the board (nothing if it is there)."""

    def item_of(self, number: int) -> BoardItem:
        """The board's item for issue ``number``, added if it is not on the board."""
        return self.add_item(number)

    def item_id_on_board(self, number: int) -> str:
        """The id of issue ``number``'s item; an error when it is not on the board."""
        return self.add_item(number).id

    def remove_item(self, item_id: str) -> None:
        raise self.unavailable("remove_item")

    @abc.abstractmethod
    def clear_field(self, number: int, field: str) -> None:
        """Empty ``field`` on issue ``number``'s item."""

    def add_draft(
        self,
        title: str,
        body: str = "",
        *,
        state: WorkflowState | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
    ) -> BoardItem:
        """A new draft on the board with those fields (locally: an issue, in Backlog
        unless ``state`` says otherwise)."""
        check_title(title)
        return self._add_draft(title, body, state, estimate, priority)

    @abc.abstractmethod
    def _add_draft(
        self,
        title: str,
        body: str,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> BoardItem: ...

    def update_draft(
        self, draft_id: str, *, title: str | None = None, body: str | None = None
    ) -> BoardItem:
        if title is not None:
            check_title(title)
        return self._update_draft(draft_id, title, body)

    def _update_draft(self, draft_id: str, title: str | None, body: str | None) -> BoardItem:
        raise self.unavailable("update_draft")

    def convert_draft(self, item_id: str) -> BoardItem:
        raise self.unavailable("convert_draft")

    @abc.abstractmethod
    def reorder(self, number: int, after: int | None) -> None:
        """Move issue ``number`` to the top (``after`` None) or right after ``after``."""

    # -- fields, views, links -----------------------------------------------------------------

    @abc.abstractmethod
    def views(self) -> list[ProjectView]: ...

    def set_field_options(self, field: str, options: Sequence[FieldOption]) -> ProjectField:
        """Replace a single-select field's options."""
        for option in options:
            check_title(option.name)
        return self._set_field_options(field, options)

    def _set_field_options(self, field: str, options: Sequence[FieldOption]) -> ProjectField:
        raise self.unavailable("set_field_options")

    def delete_field(self, field: str) -> None:
        raise self.unavailable("delete_field")

    @abc.abstractmethod
    def repositories(self) -> list[str]:
        """The repositories linked to the board ("owner/name")."""

    @abc.abstractmethod
    def link_repository(self, full_name: str, *, unlink: bool = False) -> bool:
        """Link (or unlink) a repository; False when it already was (or was not)."""

    def update_collaborators(self, collaborators: Sequence[Collaborator]) -> None:
        raise self.unavailable("collaborators")

    def link_team(self, team: str, *, unlink: bool = False) -> None:
        raise self.unavailable("link_team")

    # -- the other boards an issue is on --------------------------------------------------------

    def memberships(self, number: int) -> list[Membership]:
        """Every board issue ``number`` is on (this one included)."""
        raise self.unavailable("memberships")

    def set_state_on(self, membership: Membership, state: str) -> str | None:
        """Set Workflow State ``state`` on another board's item; None when done, else
        why not (``no_workflow_state_field``, ``invalid_option: ...``)."""
        raise self.unavailable("memberships")
