"""The agents whose provider refuses for now (a rate limit, a usage window), as ``ralph
status``, the web board and ``/api/board`` show them: read from the store, so every
process of the project sees the wait one of them heard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.orchestrate import provider_wait_text
from ralph.tasks import TaskStore

__all__ = ["ProviderWaitView", "load_provider_waits"]


@dataclass(frozen=True)
class ProviderWaitView:
    agent: str
    #: When the wait ends (epoch seconds).
    until: float
    #: What the provider said, as it said it (redacted when heard).
    said: str
    #: ``waiting for the provider of claude until 14:05 (usage limit reached)``.
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "until": self.until, "said": self.said, "text": self.text}


def load_provider_waits(store: TaskStore, *, now: float) -> tuple[ProviderWaitView, ...]:
    """The waits in force at ``now``, soonest lifted first."""
    return tuple(
        ProviderWaitView(wait.agent, wait.until, wait.said, provider_wait_text(wait, now=now))
        for wait in store.provider_waits(now=now)
    )
