"""A lease per root in the store, so that several ``ralph serve`` processes on one store
never run a root at once: the store's issue locks, under a key of their own
(``serve:<repo>``) so they never meet the phase locks on the same issue numbers.

A lease is renewed while its root runs; one whose holder stopped renewing it (a
process killed on another machine) runs out and is taken over; one held by a process of
this machine that no longer exists is taken over at once.

A lock is otherwise only taken over by whoever asks for its issue next, and a holder
killed between a phase's last move and its release (a merge that moved its issues to
Done) leaves locks on issues nobody asks for again. So every service start and lease
renewal, and every session's start and end, releases the locks whose lease ran out or
whose holder is known to be gone (``release_stale_locks``)."""

from __future__ import annotations

import logging
import time
import uuid
from contextlib import suppress

from ralph._process import holder_is_gone, process_owner
from ralph.errors import IssueLocked
from ralph.tasks import TaskStore

__all__ = ["LEASE_SECONDS", "RootLeases", "release_stale_locks"]

logger = logging.getLogger(__name__)

#: How long a root's lease lasts without a renewal: a process that stops renewing it
#: (killed, or cut off from the store) holds the root this long at most.
LEASE_SECONDS = 90.0


def release_stale_locks(store: TaskStore) -> None:
    """Release every lock of the store whose lease ran out or whose holder is gone."""
    try:
        dropped = store.release_stale_issue_locks(holder_is_gone)
    except Exception:  # the store hiccuped: the next look releases them
        logger.warning("could not release stale issue locks", exc_info=True)
        return
    for lock in dropped:
        logger.info(
            "released a stale lock",
            extra={"repo": lock.repo, "issue": lock.number, "holder": lock.owner},
        )


class RootLeases:
    def __init__(self, store: TaskStore, repo: str, *, lease_seconds: float = LEASE_SECONDS):
        self.store = store
        self.key = f"serve:{repo}"
        self.owner = process_owner("serve")
        self.token = uuid.uuid4().hex
        self.lease_seconds = lease_seconds
        self.held: set[int] = set()
        # Due at once: a service starting after a crash releases what the crash left.
        self._renewed = time.monotonic() - lease_seconds

    def take(self, root: int) -> bool:
        """Take ``root``'s lease; False when another process holds it."""
        try:
            self._acquire(root)
        except IssueLocked as locked:
            if not holder_is_gone(locked.holder):
                return False
            self.store.break_issue_lock(self.key, root, locked.holder)
            logger.info("took the root of a crashed process", extra={"holder": locked.holder})
            try:
                self._acquire(root)
            except IssueLocked:
                return False
        self.held.add(root)
        return True

    def _acquire(self, root: int) -> None:
        self.store.acquire_issue_lock(
            self.key, root, self.owner, self.token, lease_seconds=self.lease_seconds
        )

    @property
    def renew_in(self) -> float:
        """Seconds until the leases held are due for renewal (a third of their life)."""
        return max(0.0, self._renewed + self.lease_seconds / 3 - time.monotonic())

    def renew(self) -> list[int]:
        """Renew the leases held when due, and release the store's stale locks; returns
        the roots whose lease was lost."""
        if self.renew_in > 0:
            return []
        self._renewed = time.monotonic()
        release_stale_locks(self.store)
        lost = []
        for root in sorted(self.held):
            try:
                self._acquire(root)
            except IssueLocked:
                lost.append(root)
                self.held.discard(root)
        return lost

    def give_back(self, root: int) -> None:
        self.held.discard(root)
        # One that ran out and another process took is not this one's to drop.
        with suppress(IssueLocked):
            self.store.release_issue_lock(self.key, root, self.owner, self.token)

    def give_back_all(self) -> None:
        for root in sorted(self.held):
            self.give_back(root)
