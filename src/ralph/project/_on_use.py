"""A project's code host and task store, each opened the first time something asks it
anything.

``ralph status`` and ``ralph issue list`` read issues; only a command that touches pull
requests needs the code host, and opening the local one imports its pull requests,
reviews, checks and git merges. Reading issues needs nothing of the task store either
but one checkpoint (the guarded settings a person accepted) and, for ``issue show``,
whether an agent was ever refused a tool, which are read from its database without
loading the store. So a project holds these stand-ins, which open the
real adapter (in the project's ``with`` block, closed when it ends) on the first
attribute read and answer every read with the real one's."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ralph.errors import RalphError

if TYPE_CHECKING:
    from ralph.db import Database
    from ralph.tasks import Charge, TaskStore

__all__ = ["OnUse", "StoreOnUse"]

Adapter = TypeVar("Adapter")


class OnUse(Generic[Adapter]):
    def __init__(self, what: str, open_adapter: Callable[[], Adapter]) -> None:
        self._what = what
        self._open_adapter = open_adapter
        self._adapter: Adapter | None = None
        self._closed = False
        # A run's workers share the project: the first two to ask open one adapter.
        self._opening = threading.Lock()

    def opened(self) -> Adapter:
        """The real adapter, opened now if it is not yet."""
        adapter = self._adapter
        if adapter is None:
            with self._opening:
                if self._adapter is None:
                    if self._closed:  # it would never be closed
                        raise RalphError(f"the project is closed; its {self._what} cannot open")
                    self._adapter = self._open_adapter()
                adapter = self._adapter
        return adapter

    @property
    def is_open(self) -> bool:
        return self._adapter is not None

    def close(self) -> None:
        """The project's block has ended: what was opened is closed by it, and nothing
        opens from now on."""
        with self._opening:
            self._closed = True

    def __getattr__(self, name: str) -> Any:
        # Only for what this class lacks: every method and attribute of the adapter.
        return getattr(self.opened(), name)

    def __repr__(self) -> str:
        return f"<{self._what} {'opened' if self.is_open else 'not opened yet'}>"


class StoreOnUse(OnUse["TaskStore"]):
    """The task store on first use; a checkpoint, or the news that no agent was refused
    a tool, read before then comes from its database, when the store's tables are as
    this Ralph would leave them (otherwise the store opens, and brings them up to date,
    as it would have)."""

    def __init__(self, db: Database, open_store: Callable[[], TaskStore]) -> None:
        super().__init__("task store", open_store)
        self._db = db

    def load_checkpoint(self, key: str) -> dict[str, Any] | None:
        from ralph.tasks import read_checkpoint

        if self._readable_unopened():
            return read_checkpoint(self._db, key)
        return self.opened().load_checkpoint(key)

    def refused_charges(self) -> list[Charge]:
        from ralph.tasks import has_refused_charge

        if self._readable_unopened() and not has_refused_charge(self._db):
            return []
        return self.opened().refused_charges()

    def _readable_unopened(self) -> bool:
        """Not opened yet, and its database readable as the store would leave it."""
        from ralph.db import is_current
        from ralph.tasks import TASK_STORE_MIGRATIONS

        return not self.is_open and not self._closed and is_current(self._db, TASK_STORE_MIGRATIONS)
