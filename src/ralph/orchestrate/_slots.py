"""Agent slots: at most so many agents at once over every root a loop runs, and at most
so many per phase. The seam is the runtime: every phase of every root reaches its agent
through ``run(brief)``, so one wrapper caps them all, whatever the crews are."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from ralph.runtimes import AgentBrief, AgentResult, AgentRuntime, AgentStatus

__all__ = ["SLOT_WAIT_RUNS", "AgentSlots"]

#: How many of its own agent timeouts a brief waits for a slot before giving up: a slot
#: frees when an agent holding it ends, and each is bounded by its limits.
SLOT_WAIT_RUNS = 4


#: How often a brief waiting for a slot looks at its stop signal (nothing runs for it
#: meanwhile; a slot that frees is taken at once).
_STOP_LOOK_SECONDS = 0.5


class _Exhausted(Exception):
    pass


class _Stopped(Exception):
    pass


class AgentSlots(AgentRuntime):
    def __init__(self, runtime: AgentRuntime, total: int, per_phase: Mapping[str, int]) -> None:
        self.runtime = runtime
        self.name = runtime.name
        self.description = runtime.description
        self.total = total
        self._total = threading.BoundedSemaphore(total)
        self._phases = {phase: threading.BoundedSemaphore(n) for phase, n in per_phase.items()}

    def agent_for(self, phase: str) -> str:
        return self.runtime.agent_for(phase)

    def describe(self, phase: str) -> str:
        return self.runtime.describe(phase)

    def sandboxed(self, phase: str) -> bool:
        return self.runtime.sandboxed(phase)

    def run(self, brief: AgentBrief) -> AgentResult:
        wait = SLOT_WAIT_RUNS * brief.limits.timeout_seconds
        deadline = time.monotonic() + wait
        try:
            # The phase's slot first: a brief waiting for it holds none of the total.
            with (
                _slot(self._phases.get(brief.phase), deadline, brief),
                _slot(self._total, deadline, brief),
            ):
                return self.runtime.run(brief)
        except _Stopped:
            return AgentResult(
                status=AgentStatus.STOPPED, error=brief.stop.reason, agent=self.description
            )
        except _Exhausted:
            return AgentResult(
                status=AgentStatus.TIMEOUT,
                error=f"no agent slot came free in {wait:.0f}s (max_concurrent_agents and "
                "max_concurrent_phases in ralph.toml)",
                agent=self.describe(brief.phase),
            )


@contextmanager
def _slot(
    semaphore: threading.BoundedSemaphore | None, deadline: float, brief: AgentBrief
) -> Iterator[None]:
    """Hold a slot of ``semaphore``; a brief stopped while it waits gives up waiting."""
    if semaphore is None:
        yield
        return
    while not semaphore.acquire(
        timeout=max(0.0, min(_STOP_LOOK_SECONDS, deadline - time.monotonic()))
    ):
        if brief.stop.stopped:
            raise _Stopped
        if time.monotonic() >= deadline:
            raise _Exhausted
    try:
        yield
    finally:
        semaphore.release()
