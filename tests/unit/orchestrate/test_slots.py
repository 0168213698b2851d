"""Agent slots: however many workers ask at once, no more agents run than the loop
allows in all and per phase; a brief that finds no slot in time ends as a timeout."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ralph.orchestrate import AgentSlots
from ralph.runtimes import AgentBrief, AgentResult, AgentRuntime, AgentStatus, Limits


class Counting(AgentRuntime):
    name = "counting"
    description = "counting agent"

    def __init__(self, seconds: float = 0.05) -> None:
        self.seconds = seconds
        self.lock = threading.Lock()
        self.now: dict[str, int] = {}
        self.most: dict[str, int] = {}

    def run(self, brief: AgentBrief) -> AgentResult:
        with self.lock:
            for key in (brief.phase, "all"):
                self.now[key] = self.now.get(key, 0) + 1
                self.most[key] = max(self.most.get(key, 0), self.now[key])
        time.sleep(self.seconds)
        with self.lock:
            for key in (brief.phase, "all"):
                self.now[key] -= 1
        return AgentResult(status=AgentStatus.OK)


def brief(phase: str, timeout: float = 60.0) -> AgentBrief:
    return AgentBrief(
        phase=phase,
        role="analyst",
        issues=(),
        instructions="",
        workdir=Path("."),
        tools=(),
        limits=Limits(timeout_seconds=timeout),
    )


def test_no_more_agents_run_than_allowed_in_all_and_per_phase():
    agents = Counting()
    slots = AgentSlots(agents, 3, {"implement": 1})
    phases = ["implement", "research"] * 8
    with ThreadPoolExecutor(len(phases)) as pool:
        results = list(pool.map(lambda p: slots.run(brief(p)), phases))
    assert all(r.ok for r in results)
    assert agents.most["all"] == 3
    assert agents.most["implement"] == 1


def test_a_brief_that_finds_no_slot_in_time_is_a_timeout():
    slots = AgentSlots(Counting(seconds=0.5), 1, {})
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(slots.run, brief("research"))
        time.sleep(0.1)
        late = slots.run(brief("research", timeout=0.01))
    assert first.result(timeout=5).ok
    assert late.status is AgentStatus.TIMEOUT
    assert "no agent slot came free" in late.error
