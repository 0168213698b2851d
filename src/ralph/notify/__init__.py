"""Notifications: a word to a person when they are needed (an escalation, a plan to
approve, a review requested), when a run ends and when a budget stops work, sent to the
``[notify]`` command and webhook of ralph.toml. Sending never blocks the pipeline and
never raises: calls are bounded, run on a background thread, and failures are logged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.notify._check import NotifyCheck, check_notify
    from ralph.notify._event import (
        EventKind,
        NotifyEvent,
        budget_stopped,
        escalated,
        person_needed,
        run_ended,
        sample_event,
    )
    from ralph.notify._notifier import BackgroundNotifier, Notifier, notifier_for
    from ralph.notify._send import (
        CommandSandbox,
        Delivery,
        deliver,
        post_webhook,
        run_command,
    )
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "BackgroundNotifier",
    "CommandSandbox",
    "Delivery",
    "EventKind",
    "Notifier",
    "NotifyCheck",
    "NotifyEvent",
    "budget_stopped",
    "check_notify",
    "deliver",
    "escalated",
    "notifier_for",
    "person_needed",
    "post_webhook",
    "run_command",
    "run_ended",
    "sample_event",
]
