"""The task store's events (what wakes idle workers) and the messages workers send
the lead."""

from __future__ import annotations

import time
from typing import Any

from ralph.tasks._core import StoreCore
from ralph.tasks._model import Event, Message, MessageKind
from ralph.tasks._rows import to_event, to_message

__all__ = ["MessageVerbs"]


class MessageVerbs(StoreCore):
    """The run's events and messages."""

    # -- events ---------------------------------------------------------------------------

    def events(self, run_id: int, cursor: int = 0, limit: int | None = None) -> list[Event]:
        """Events of the run with an id above ``cursor``, oldest first."""
        sql = "SELECT * FROM ralph_events WHERE run_id = ? AND id > ? ORDER BY id"
        params: list[Any] = [run_id, cursor]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._reader() as tx:
            return [to_event(row) for row in tx.rows(sql, params)]

    def wait_for_events(self, run_id: int, cursor: int, timeout: float) -> list[Event]:
        """Like events(), but waits up to ``timeout`` seconds for one to arrive."""
        deadline = time.monotonic() + timeout
        # Only the run's events wake the wait (a board's change does not): every
        # idle worker of a team reads the events at each wake (issue 49).
        # The waiters woken together share one read (``SharedEventReads``).
        topic = str(run_id)
        seen = self.db.wait_for_change(0, 0.0, topic=topic)
        # A read that began after this moment holds all this waiter could have seen.
        previous_look = time.monotonic()
        while True:
            found = self._event_reads.after(
                run_id, cursor, seen, previous_look, lambda after: self.events(run_id, after)
            )
            previous_look = time.monotonic()
            remaining = deadline - time.monotonic()
            if found or remaining <= 0:
                return found
            seen = self.db.wait_for_change(seen, remaining, topic=topic)

    # -- messages -------------------------------------------------------------------------

    def send_message(
        self, run_id: int, sender: str, recipient: str, kind: MessageKind | str, body: str
    ) -> Message:
        with self._write() as tx:
            self._locked_run(tx, run_id)
            return self._insert_message(tx, run_id, sender, recipient, MessageKind(kind), body)

    def messages(
        self, run_id: int, *, recipient: str | None = None, unread_only: bool = False
    ) -> list[Message]:
        sql = "SELECT * FROM ralph_messages WHERE run_id = ?"
        params: list[Any] = [run_id]
        if recipient is not None:
            sql += " AND recipient = ?"
            params.append(recipient)
        if unread_only:
            sql += " AND is_read = 0"
        with self._reader() as tx:
            return [to_message(row) for row in tx.rows(sql + " ORDER BY id", params)]

    def mark_read(self, message_id: int) -> None:
        with self._write() as tx:
            tx.run("UPDATE ralph_messages SET is_read = 1 WHERE id = ?", (message_id,))
