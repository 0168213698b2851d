"""The notifier the pipeline holds: ``notify(event)`` returns at once. ``Notifier`` sends
nothing (no ``[notify]`` settings); ``BackgroundNotifier`` hands events to one daemon
thread through a bounded queue and, at ``close``, waits for what is queued only until a
deadline."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.config import NotifySettings

if TYPE_CHECKING:
    # Annotations: a project without a notify target (most commands) sends nothing, so it
    # loads neither the events nor how they are sent.
    from ralph.notify._event import NotifyEvent
    from ralph.notify._send import CommandSandbox

__all__ = ["BackgroundNotifier", "Notifier", "notifier_for"]

logger = logging.getLogger(__name__)

#: Events waiting to be sent; past it new ones are dropped (and logged), as a flood of
#: them is no message a person reads.
MAX_QUEUED = 100


class Notifier:
    """Sends nothing: what the pipeline holds when ``[notify]`` names no target."""

    def notify(self, event: NotifyEvent) -> None:
        """Send ``event`` in the background; never blocks, never raises."""

    def close(self) -> None:
        """Wait, for a bounded time, for what is queued to be sent."""


class BackgroundNotifier(Notifier):
    def __init__(
        self,
        settings: NotifySettings,
        *,
        cwd: Path | None = None,
        sandbox: CommandSandbox | None = None,
    ) -> None:
        # Here, not at the top: only a project with a notify target sends anything.
        from ralph.notify._send import deliver

        self.settings = settings
        self.cwd = cwd
        self.sandbox = sandbox
        self._deliver = deliver
        self._queue: queue.Queue[NotifyEvent | None] = queue.Queue(MAX_QUEUED)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def drain_seconds(self) -> float:
        """How long ``close`` waits for what is queued: time for one slow call and a
        retry, never the whole backoff of a dead webhook."""
        return 2 * self.settings.timeout_seconds + 1

    def notify(self, event: NotifyEvent) -> None:
        with self._lock:
            if self._closed:
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._drain, name="ralph-notify", daemon=True
                )
                self._thread.start()
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            logger.warning(
                "notification dropped: too many queued",
                extra={"event": event.event.value, "queued": MAX_QUEUED},
            )

    def close(self) -> None:
        with self._lock:
            self._closed = True
            thread = self._thread
        if thread is None:
            return
        deadline = time.monotonic() + self.drain_seconds
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=max(0.0, deadline - time.monotonic()))
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            logger.warning(
                "notifications not sent before exit",
                extra={"queued": self._queue.qsize(), "waited_seconds": self.drain_seconds},
            )

    def _drain(self) -> None:
        while (event := self._queue.get()) is not None:
            try:
                sent = self._deliver(self.settings, event, cwd=self.cwd, sandbox=self.sandbox)
            except Exception:  # a bug here must not end the thread silently
                logger.exception("notification failed", extra={"event": event.event.value})
                continue
            for delivery in sent:
                if not delivery.ok:
                    logger.warning(
                        "notification not delivered",
                        extra={
                            "event": event.event.value,
                            "target": delivery.target,
                            "detail": delivery.detail,
                            "attempts": delivery.attempts,
                        },
                    )


def notifier_for(
    settings: NotifySettings, *, cwd: Path | None = None, sandbox: CommandSandbox | None = None
) -> Notifier:
    """The notifier ``settings`` call for: a background one when they name a target."""
    if not settings.configured:
        return Notifier()
    return BackgroundNotifier(settings, cwd=cwd, sandbox=sandbox)
