"""What a notification says: the event, as the JSON a command reads and a webhook gets."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Any

from ralph._secrets import redact
from ralph._text import printable

__all__ = [
    "EventKind",
    "NotifyEvent",
    "budget_stopped",
    "escalated",
    "person_needed",
    "run_ended",
    "sample_event",
]

#: A summary longer than this is cut: it is one line for a chat message or a title.
MAX_SUMMARY = 300


class EventKind(enum.StrEnum):
    #: An issue went to Human Needed.
    ESCALATED = "escalated"
    #: A plan waits for a person's approval (review_mode interactive).
    APPROVAL_NEEDED = "approval_needed"
    #: A pull request waits for a person (a review, a merge by hand).
    REVIEW_NEEDED = "review_needed"
    #: A session of a run ended (its ``outcome`` says how).
    RUN_ENDED = "run_ended"
    #: A budget cap stopped new work.
    BUDGET_STOPPED = "budget_stopped"
    #: ``ralph notify test``.
    TEST = "test"


@dataclass(frozen=True, kw_only=True)
class NotifyEvent:
    event: EventKind
    #: One line for a person: what happened and to what.
    summary: str
    repo: str = ""
    issue: int | None = None
    run: int | None = None
    #: Why (an escalation's reason, a run's ending detail).
    reason: str = ""
    #: How a run ended ("finished", "waiting_for_human", "out_of_budget", ...).
    outcome: str = ""
    #: Where to look (the issue on GitHub), when there is such a place.
    url: str = ""
    time: float = 0.0

    def fields(self) -> dict[str, Any]:
        """The event as JSON-ready fields, every text redacted and made printable."""
        fields: dict[str, Any] = {
            "event": self.event.value,
            "summary": self.one_line(),
            "repo": self.repo,
            "issue": self.issue,
            "run": self.run,
            "reason": redact(self.reason),
            "outcome": self.outcome,
            "url": redact(self.url),
            "time": self.time or time.time(),
        }
        return fields

    def one_line(self) -> str:
        """The summary, redacted, on one line of at most ``MAX_SUMMARY`` characters."""
        line = " ".join(printable(redact(self.summary)).split())
        return line if len(line) <= MAX_SUMMARY else line[: MAX_SUMMARY - 1] + "…"


def sample_event(repo: str) -> NotifyEvent:
    """What ``ralph notify test`` sends."""
    return NotifyEvent(
        event=EventKind.TEST,
        summary=f"Ralph ({repo}): a test notification from `ralph notify test`",
        repo=repo,
        reason="sent by `ralph notify test` to check the [notify] settings",
    )


def escalated(
    repo: str,
    issue: int,
    title: str,
    *,
    phase: str,
    reason: str,
    url: str = "",
    run: int | None = None,
) -> NotifyEvent:
    """An issue went to Human Needed: the phase gave up on it for ``reason``; ``run``:
    the run it happened in (None: a phase run by hand, ``ralph run``). The run goes on
    with its other work, so it has no outcome yet; its ``run_ended`` says it."""
    where = f" in run {run}" if run is not None else ""
    return NotifyEvent(
        event=EventKind.ESCALATED,
        summary=f"Ralph ({repo}): #{issue} {title} needs a person ({phase}{where}): {reason}",
        repo=repo,
        issue=issue,
        run=run,
        reason=reason,
        # Only a place a person can open (the local tracker's "local:repo#1" is none).
        url=url if url.startswith(("https://", "http://")) else "",
    )


def run_ended(
    repo: str, run: int, root: int, *, outcome: str, said: str, reason: str
) -> NotifyEvent:
    """A session of run ``run`` (of issue ``root``) ended with ``outcome``; ``said`` is
    the outcome in words."""
    detail = f": {reason}" if reason else ""
    return NotifyEvent(
        event=EventKind.RUN_ENDED,
        summary=f"Ralph ({repo}): run {run} of #{root} {said}{detail}",
        repo=repo,
        issue=root,
        run=run,
        outcome=outcome,
        reason=reason,
    )


def person_needed(
    kind: EventKind, repo: str, run: int, issue: int, *, subject: str, reason: str
) -> NotifyEvent:
    """A task of run ``run`` waits for a person: a plan to approve, a pull request to
    review or merge."""
    what = "a plan to approve" if kind is EventKind.APPROVAL_NEEDED else "a person"
    return NotifyEvent(
        event=kind,
        summary=f"Ralph ({repo}): #{issue} waits for {what}: {subject}"
        + (f" ({reason})" if reason else ""),
        repo=repo,
        issue=issue,
        run=run,
        reason=reason,
    )


def budget_stopped(repo: str, run: int, root: int, *, reason: str) -> NotifyEvent:
    """A budget cap stopped new work on run ``run``."""
    return NotifyEvent(
        event=EventKind.BUDGET_STOPPED,
        summary=f"Ralph ({repo}): run {run} of #{root} stopped: {reason}",
        repo=repo,
        issue=root,
        run=run,
        reason=reason,
    )
