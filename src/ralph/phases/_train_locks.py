"""The issue locks of the riders of a merge train: taken for the batch, as a phase takes
the issues it works on, so no phase and no merge look works on a rider's issues while
the train may land it; each rider's given back as it leaves the train (landed or sent
back, before its own task is woken) and all at the end."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from ralph._process import process_owner
from ralph.errors import IssueLocked
from ralph.tasks import TaskStore

__all__ = ["RiderLocks"]


class RiderLocks:
    """The locks a conductor holds on its riders' issues, by pull request."""

    def __init__(self, store: TaskStore, repo: str) -> None:
        self.store = store
        self.repo = repo
        self.owner = process_owner()
        self.token = uuid.uuid4().hex
        self.held: dict[int, tuple[int, ...]] = {}

    def take(self, pr: int, issues: Iterable[int]) -> bool:
        """Lock ``pr``'s issues; False (none kept) when another holder has one."""
        taken: list[int] = []
        try:
            for number in issues:
                self.store.acquire_issue_lock(self.repo, number, self.owner, self.token)
                taken.append(number)
        except IssueLocked:
            self._release(taken)
            return False
        self.held[pr] = tuple(taken)
        return True

    def refresh(self) -> None:
        """Keep the locks held while the train runs longer than a lease."""
        for issues in self.held.values():
            for number in issues:
                self.store.acquire_issue_lock(self.repo, number, self.owner, self.token)

    def give_back(self, pr: int) -> None:
        self._release(self.held.pop(pr, ()))

    def give_back_all(self) -> None:
        for pr in list(self.held):
            self.give_back(pr)

    def _release(self, issues: Iterable[int]) -> None:
        for number in issues:
            self.store.release_issue_lock(self.repo, number, self.owner, self.token)
