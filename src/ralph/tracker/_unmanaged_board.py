"""A ``ProjectBoard`` there is none of to manage (Linear's team, Jira's project): every
operation refuses with ``unavailable(operation)``, which names what to use instead."""

from __future__ import annotations

import abc

from ralph.errors import NotAvailable
from ralph.tracker._project_board import (
    BoardItem,
    ProjectBoard,
    ProjectInfo,
    ProjectView,
)
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = ["UnmanagedBoard"]


class UnmanagedBoard(ProjectBoard):
    @abc.abstractmethod
    def unavailable(self, operation: str) -> NotAvailable:
        """The refusal of ``operation``, in one line naming what to use instead."""

    def info(self) -> ProjectInfo:
        raise self.unavailable("info")

    def projects(
        self, *, state: str = "open", limit: int = 50, owner: str | None = None
    ) -> list[ProjectInfo]:
        raise self.unavailable("projects")

    def project(self, number: int, *, owner: str | None = None) -> ProjectInfo:
        raise self.unavailable("other_projects")

    def _update(
        self,
        title: str | None,
        short_description: str | None,
        readme: str | None,
        public: bool | None,
        closed: bool | None,
    ) -> ProjectInfo:
        raise self.unavailable("update")

    def items(self) -> list[BoardItem]:
        raise self.unavailable("items")

    def add_item(self, number: int) -> BoardItem:
        raise self.unavailable("add_item")

    def item_id_on_board(self, number: int) -> str:
        raise self.unavailable("remove_item")

    def clear_field(self, number: int, field: str) -> None:
        raise self.unavailable("clear_field")

    def _add_draft(
        self,
        title: str,
        body: str,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
    ) -> BoardItem:
        raise self.unavailable("add_draft")

    def reorder(self, number: int, after: int | None) -> None:
        raise self.unavailable("reorder")

    def views(self) -> list[ProjectView]:
        raise self.unavailable("views")

    def repositories(self) -> list[str]:
        raise self.unavailable("repositories")

    def link_repository(self, full_name: str, *, unlink: bool = False) -> bool:
        raise self.unavailable("link_repository")
