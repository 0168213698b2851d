"""Something a phase waits for, standing in for the merge policy (checks, reviews) in
tests: while the gate is shut, the phase's check raises ``Waiting``; once it opens, the
phase runs as usual. It shuts for a number of looks, or while a file exists (for a
``ralph`` process, see ``waiting_ralph.py``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph.phases import Phase, Waiting

__all__ = ["WaitGate"]


class WaitGate:
    def __init__(
        self,
        reason: str = "checks (1 pending)",
        *,
        for_person: bool = False,
        looks: int | None = None,
        file: Path | None = None,
        issue: int | None = None,
    ) -> None:
        """Shut for the first ``looks`` looks, or while ``file`` exists, or until
        ``open()``; only for ``issue`` when given (others pass)."""
        self.reason = reason
        self.for_person = for_person
        self.looks_left = looks
        self.file = file
        self.issue = issue
        self.looks = 0
        self.waited = 0
        self._open = threading.Event()
        self._lock = threading.Lock()

    def open(self) -> None:
        self._open.set()

    def shut(self) -> bool:
        if self._open.is_set():
            return False
        if self.file is not None:
            return self.file.exists()
        if self.looks_left is not None:
            return self.looks <= self.looks_left
        return True

    def check(self, number: int) -> None:
        """Raise Waiting while shut (for the gate's issue)."""
        if self.issue is not None and number != self.issue:
            return
        with self._lock:
            self.looks += 1
            if not self.shut():
                return
            self.waited += 1
        raise Waiting(self.reason, for_person=self.for_person)

    def install(self, phase: type[Phase]) -> Any:
        """Put the gate before ``phase``'s check; returns the check it replaced."""
        original = phase.check
        gate = self

        def check(self: Phase, ctx: Any, members: Sequence[Any]) -> None:
            gate.check(members[0].number)
            original(self, ctx, members)

        phase.check = check  # type: ignore[method-assign]
        return original
