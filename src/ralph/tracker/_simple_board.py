"""The board of a tracker that keeps its own issues (the local one): every issue is an
item, in an order a person can change; drafts are Backlog issues; views are the filter
profiles; the board's title, description and linked repositories are kept beside the
issues (``BoardRecords``: SQL tables for the local tracker)."""

from __future__ import annotations

import abc
import re
from collections.abc import Mapping
from typing import Any

from ralph.errors import InvalidInput
from ralph.tracker._board_fields import ESTIMATE, FIELDS, PRIORITY, PROJECT_TITLE, WORKFLOW_STATE
from ralph.tracker._model import Issue, IssueOrder, IssueQuery
from ralph.tracker._project_board import (
    BoardItem,
    FieldOption,
    ItemType,
    ProjectBoard,
    ProjectField,
    ProjectInfo,
    ProjectView,
    profile_views,
)
from ralph.tracker._tracker import Tracker
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = ["BoardRecords", "SimpleBoard"]

_REPOSITORY = re.compile(r"^(?:[A-Za-z0-9-]+/)?[A-Za-z0-9._-]+$")
#: Below this gap between two positions they are numbered afresh.
_SMALLEST_GAP = 1e-6


class BoardRecords(abc.ABC):
    """Where a simple board keeps what is not an issue."""

    @abc.abstractmethod
    def settings(self) -> dict[str, Any]:
        """title, shortDescription, readme, public, closed: those ever set."""

    @abc.abstractmethod
    def save_settings(self, changes: Mapping[str, Any]) -> None: ...

    @abc.abstractmethod
    def positions(self) -> dict[int, float]:
        """Issue number -> position, for the issues ever moved."""

    @abc.abstractmethod
    def save_positions(self, positions: Mapping[int, float]) -> None: ...

    @abc.abstractmethod
    def linked(self) -> list[str]:
        """Repositories linked besides the board's own."""

    @abc.abstractmethod
    def set_linked(self, name: str, linked: bool) -> bool:
        """Whether that changed anything."""

    @abc.abstractmethod
    def clear(self, number: int, field: str) -> None:
        """Empty the Estimate or Priority of issue ``number`` (it exists)."""


def _fields() -> tuple[ProjectField, ...]:
    return tuple(
        ProjectField(
            id=f"field:{name}",
            name=name,
            data_type="SINGLE_SELECT",
            options=tuple(FieldOption(o, o, colour, text) for o, colour, text in options),
        )
        for name, options in FIELDS.items()
    )


class SimpleBoard(ProjectBoard):
    def __init__(self, tracker: Tracker, records: BoardRecords, *, repository: str) -> None:
        self.tracker = tracker
        self.records = records
        self.repository = repository
        self.kind = tracker.kind

    # -- the project ------------------------------------------------------------------------

    def info(self) -> ProjectInfo:
        settings = self.records.settings()
        return ProjectInfo(
            id=f"{self.kind}:{self.repository}",
            number=1,
            title=settings.get("title") or PROJECT_TITLE,
            url=f"{self.kind}:{self.repository}/board",
            owner=self.repository,
            short_description=settings.get("shortDescription") or "",
            readme=settings.get("readme") or "",
            public=bool(settings.get("public", False)),
            closed=bool(settings.get("closed", False)),
            fields=_fields(),
            item_count=len(self.tracker.list_issues(IssueQuery(status=None))),
            view_count=len(profile_views()),
        )

    def projects(
        self, *, state: str = "open", limit: int = 50, owner: str | None = None
    ) -> list[ProjectInfo]:
        board = self.info()
        wanted = {"open": not board.closed, "closed": board.closed, "all": True}[state]
        return [board] if wanted and limit > 0 else []

    def _update(
        self,
        title: str | None,
        short_description: str | None,
        readme: str | None,
        public: bool | None,
        closed: bool | None,
    ) -> ProjectInfo:
        changes = {
            "title": title,
            "shortDescription": short_description,
            "readme": readme,
            "public": public,
            "closed": closed,
        }
        self.records.save_settings({k: v for k, v in changes.items() if v is not None})
        return self.info()

    # -- items ------------------------------------------------------------------------------

    def _item(self, issue: Issue) -> BoardItem:
        return BoardItem(
            id=f"item:{issue.number}",
            type=ItemType.ISSUE,
            title=issue.title,
            number=issue.number,
            state="OPEN" if issue.is_open else "CLOSED",
            url=issue.url,
            body=issue.body,
            repository=self.repository,
            workflow_state=issue.workflow_state.value if issue.workflow_state else None,
            estimate=issue.estimate.value if issue.estimate else None,
            priority=issue.priority.value if issue.priority else None,
            labels=issue.labels,
            assignees=issue.assignees,
            updated_at=issue.updated_at,
        )

    def _order(self, issues: list[Issue]) -> list[Issue]:
        positions = self.records.positions()
        return sorted(issues, key=lambda i: (positions.get(i.number, float(i.number)), i.number))

    def items(self) -> list[BoardItem]:
        issues = self.tracker.list_issues(IssueQuery(status=None, order=IssueOrder.CREATED_ASC))
        return [self._item(issue) for issue in self._order(issues)]

    def add_item(self, number: int) -> BoardItem:
        return self._item(self.tracker.get_issue(number))

    def clear_field(self, number: int, field: str) -> None:
        self.tracker.get_issue(number)
        if field == WORKFLOW_STATE:
            raise InvalidInput(
                "Workflow State changes go through the workflow (each one audited); move "
                "the issue with update_workflow_state instead"
            )
        if field not in (ESTIMATE, PRIORITY):
            raise InvalidInput(
                f'the board has no field "{field}" that can be cleared; use {ESTIMATE} or '
                f"{PRIORITY}"
            )
        self.records.clear(number, field)

    def _add_draft(
        self,
        title: str,
        body: str,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> BoardItem:
        issue = self.tracker.create_issue(
            title,
            body=body,
            state=state or WorkflowState.BACKLOG,
            estimate=estimate,
            priority=priority,
        )
        return self._item(issue)

    def reorder(self, number: int, after: int | None) -> None:
        self.tracker.get_issue(number)
        if after is not None:
            self.tracker.get_issue(after)
        if after == number:
            raise InvalidInput(f"#{number} cannot be placed after itself")
        issues = self.tracker.list_issues(IssueQuery(status=None, order=IssueOrder.CREATED_ASC))
        positions = self.records.positions()
        order = [i.number for i in self._order(issues) if i.number != number]
        place = 0 if after is None else order.index(after) + 1
        order.insert(place, number)
        current = {n: positions.get(n, float(n)) for n in order}
        before = current[order[place - 1]] if place > 0 else None
        following = current[order[place + 1]] if place + 1 < len(order) else None
        if before is None and following is None:
            return
        if before is None:
            assert following is not None
            new = following - 1
        elif following is None:
            new = before + 1
        else:
            new = (before + following) / 2
        if (before is not None and new - before < _SMALLEST_GAP) or (
            following is not None and following - new < _SMALLEST_GAP
        ):
            self.records.save_positions({n: float(i) for i, n in enumerate(order, 1)})
            return
        self.records.save_positions({number: new})

    # -- fields, views, links -----------------------------------------------------------------

    def views(self) -> list[ProjectView]:
        return list(profile_views())

    def repositories(self) -> list[str]:
        return [self.repository, *self.records.linked()]

    def link_repository(self, full_name: str, *, unlink: bool = False) -> bool:
        if not _REPOSITORY.match(full_name):
            raise InvalidInput(f"{full_name!r} is not a repository name (OWNER/NAME or NAME)")
        if full_name == self.repository:
            if unlink:
                raise InvalidInput(f"{full_name} is the board's own repository; it stays linked")
            return False
        return self.records.set_linked(full_name, not unlink)
