"""A provider's limit is waited out, never an attempt: the run waits until the reset the
provider named (or backs off when it named none) and ends Done with every task tried
once; that agent's work pauses while other agents carry on; the wait is in the store
for every process to see."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Mapping

import pytest

from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.config import BestOf
from ralph.orchestrate import Ending, SessionResult
from ralph.runtimes import AgentBrief, AgentResult, AgentStatus
from ralph.runtimes._by_phase import PhaseAgents
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import TaskStatus
from ralph.workflow import WorkflowState

from .conftest import Demo

pytestmark = pytest.mark.timeout(120)

SAID = "usage limit reached"
CANCELED = TaskStatus.CANCELED


class LimitedRuntime(ScriptedRuntime):
    """Scripted agents behind a provider that refuses the first ``limited[phase]`` runs
    of a phase, saying its limit lifts ``resets_in`` seconds later (0: not said)."""

    def __init__(self, name: str, limited: Mapping[str, int], *, resets_in: float = 2.0) -> None:
        super().__init__(env={})
        self.name = name
        self.left = dict(limited)
        self.resets_in = resets_in
        #: (phase, when) of each run the provider refused, and of each it let work.
        self.refused: list[tuple[str, float]] = []
        self.worked: list[tuple[str, float]] = []
        self._counting = threading.Lock()

    def run(self, brief: AgentBrief) -> AgentResult:
        with self._counting:
            refuse = self.left.get(brief.phase, 0) > 0
            if refuse:
                self.left[brief.phase] -= 1
                self.refused.append((brief.phase, time.time()))
            else:
                self.worked.append((brief.phase, time.time()))
        if not refuse:
            return super().run(brief)
        resets = time.time() + self.resets_in if self.resets_in else 0.0
        return AgentResult(
            status=AgentStatus.RATE_LIMITED,
            error=SAID,
            resets_at=resets,
            input_tokens=100,
            output_tokens=5,
            turns=1,
        )


def _tried_once(demo: Demo, result: SessionResult) -> dict[str, int]:
    assert result.run is not None
    tasks = demo.project.store.list_tasks(result.run.id)
    # Tasks a re-plan replaced before they ran were never tried.
    return {t.key: t.attempts for t in tasks if t.attempts != 1 and t.status is not CANCELED}


def test_a_limit_with_a_reset_is_waited_out_and_the_run_ends_done_every_task_tried_once(
    demo: Demo,
):
    number = demo.issue("farewell")
    runtime = LimitedRuntime("claude", {"research": 1, "plan": 1}, resets_in=2.0)
    started = time.monotonic()
    result = demo.hero(number, runtime=runtime)
    took = time.monotonic() - started

    assert result.ending is Ending.FINISHED, result.detail
    assert demo.state(number) is WorkflowState.DONE
    assert _tried_once(demo, result) == {}
    assert took >= 4.0  # two resets, two seconds each
    # No agent of the waiting phase started before the reset.
    for phase, refused_at in runtime.refused:
        after = [at for p, at in runtime.worked if p == phase]
        assert min(after) >= refused_at + 2.0 - 0.05
    # The refused runs are charged: their tokens count.
    report = demo.report(result)
    research = next(line for line in report.tasks if line.subject.startswith("Research"))
    assert research.tokens >= 105
    waits = demo.project.store.provider_waits(now=0.0)
    assert [(w.agent, w.said) for w in waits] == [("claude", SAID)]


def test_a_limit_without_a_reset_backs_off_and_the_run_still_ends_done(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("ralph.orchestrate._provider_wait.FIRST_BACKOFF_SECONDS", 1.0)
    number = demo.issue("farewell")
    runtime = LimitedRuntime("claude", {"research": 2}, resets_in=0)
    result = demo.hero(number, runtime=runtime)

    assert result.ending is Ending.FINISHED, result.detail
    assert _tried_once(demo, result) == {}
    first, second, third = [
        at for phase, at in [*runtime.refused, *runtime.worked] if phase == "research"
    ]
    assert second - first >= 1.0 - 0.05
    assert third - second >= 2.0 - 0.05  # heard again at once: the backoff doubled


def test_other_agents_carry_on_while_one_waits_for_its_provider(demo: Demo):
    """Research on claude, the rest on codex: while claude's provider refuses, the other
    root's triage runs on codex; claude's work starts again only after the reset."""
    claude = LimitedRuntime("claude", {"research": 1}, resets_in=3.0)
    codex = LimitedRuntime("codex", {})
    runtime = PhaseAgents(codex, {"research": claude})
    researching = demo.issue("farewell")
    triaging = demo.issue("export", state=WorkflowState.BACKLOG)
    results: dict[int, SessionResult] = {}

    def hero(root: int) -> None:
        results[root] = demo.hero(root, runtime=runtime, concurrency=1)

    first = threading.Thread(target=hero, args=(researching,))
    first.start()
    deadline = time.monotonic() + 30
    while not claude.refused and time.monotonic() < deadline:
        time.sleep(0.05)
    hero(triaging)
    first.join(60)

    assert {root: r.ending for root, r in results.items()} == dict.fromkeys(
        (researching, triaging), Ending.FINISHED
    )
    assert [_tried_once(demo, r) for r in results.values()] == [{}, {}]
    ((_, refused_at),) = claude.refused
    reset = refused_at + 3.0
    assert any(p == "triage" and refused_at < at < reset for p, at in codex.worked)
    assert all(at >= reset - 0.05 for _, at in claude.worked)


def test_the_run_says_once_what_it_waits_for(demo: Demo):
    """Every task of the agent waits, each said as it goes back; the wait itself is said
    once, as a person reads it."""
    number = demo.issue("farewell")
    lines = io.StringIO()
    view = LiveView(demo.project.store, demo.project.tracker, Console(file=lines, width=200))
    runtime = LimitedRuntime("claude", {"research": 1}, resets_in=2.0)
    result = demo.hero(number, runtime=runtime, observer=view)

    assert result.ending is Ending.FINISHED, result.detail
    ((_, refused_at),) = runtime.refused
    until = time.strftime("%H:%M", time.localtime(refused_at + 2.0))
    said = [line for line in lines.getvalue().splitlines() if "the provider of" in line]
    wanted = f"○ waiting for the provider of claude until {until} ({SAID})"
    assert len([line for line in said if line.endswith(wanted)]) == 1, said


def test_an_attempt_of_best_of_waits_for_its_provider_and_is_not_lost(demo: Demo):
    """The attempt whose run the provider refused goes back untried and runs after the
    reset; best of two still compares two attempts."""
    number = demo.issue("farewell")
    runtime = LimitedRuntime("claude", {"implement": 1}, resets_in=2.0)
    result = demo.hero(number, runtime=runtime, best_of=BestOf(count=2))

    assert result.ending is Ending.FINISHED, result.detail
    assert demo.state(number) is WorkflowState.DONE
    assert _tried_once(demo, result) == {}
    statuses = demo.statuses(result)
    assert {f"implement:{number}/try-{k}" for k in (1, 2)} <= set(statuses)
    ((_, refused_at),) = runtime.refused
    implemented = [at for phase, at in runtime.worked if phase == "implement"]
    assert len(implemented) == 2
    assert max(implemented) >= refused_at + 2.0 - 0.05
