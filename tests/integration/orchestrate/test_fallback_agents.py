"""``fallback_agents``: a phase whose agent stays rate limited, or cannot work here,
finishes on the fallback agent in the same attempt, the run's report says so and the
charge is the agent's that ran; a limit that lifts soon is waited out instead."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest

from ralph.cli import main
from ralph.config import PhaseSettings
from ralph.errors import ConfigError
from ralph.phases import PhaseRunner, PhaseStatus, ProviderLimited
from ralph.phases._fallback import FallbackChain
from ralph.runtimes import AgentBrief, AgentResult, AgentRuntime, AgentStatus, PhaseAgents
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import WorkflowState

from .conftest import Demo

HOUR = 3600.0


class LimitedAgent(ScriptedRuntime):
    """An agent whose provider refuses every run until ``resets_in`` seconds ahead (0:
    without saying when), having read some input as a refused CLI reports it."""

    description = "Claude Code (limited)"

    def __init__(self, name: str, resets_in: float, said: str = "usage limit reached") -> None:
        super().__init__(env={})
        self.name = name
        self.resets_in = resets_in
        self.said = said

    def run(self, brief: AgentBrief) -> AgentResult:
        self.briefs.append(brief)
        return AgentResult(
            status=AgentStatus.RATE_LIMITED,
            resets_at=time.time() + self.resets_in if self.resets_in else 0.0,
            error=self.said,
            input_tokens=100,
            agent=self.description,
        )


class UnusableAgent(ScriptedRuntime):
    """An agent whose key is refused: it cannot work here at all."""

    name = "claude"

    def run(self, brief: AgentBrief) -> AgentResult:
        self.briefs.append(brief)
        return AgentResult(status=AgentStatus.MISCONFIGURED, error="invalid x-api-key")


class Named(ScriptedRuntime):
    """The scripted agents under another agent's name (``codex``)."""

    def __init__(self, name: str) -> None:
        super().__init__(env={})
        self.name = name
        self.description = f"{name} (scripted)"

    def run(self, brief: AgentBrief) -> AgentResult:
        return dataclasses.replace(super().run(brief), agent=self.description)


def falls_back(demo: Demo, *agents: str, phase: str = "", after: float = 300.0) -> None:
    """ralph.toml's fallback_agents: for every phase, or for ``phase`` only."""
    settings = demo.project.config.agent
    if phase:
        own = settings.phases.get(phase, PhaseSettings())
        own = dataclasses.replace(own, fallback_agents=agents)
        settings = dataclasses.replace(settings, phases={**settings.phases, phase: own})
    else:
        settings = dataclasses.replace(settings, fallback_agents=agents)
    settings = dataclasses.replace(settings, fallback_after_seconds=after)
    config = dataclasses.replace(demo.project.config, agent=settings)
    demo.project = dataclasses.replace(demo.project, config=config)


def agents(own: ScriptedRuntime, **named: ScriptedRuntime) -> PhaseAgents:
    return PhaseAgents(own, {}, named)


def run_show(run_id: int, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["runs", "show", str(run_id)])
    out, err = capsys.readouterr()
    return out + err


def test_a_phase_whose_agent_stays_limited_finishes_on_the_fallback_in_one_attempt(
    demo: Demo, monkeypatch, capsys
):
    monkeypatch.chdir(demo.folder)
    monkeypatch.setenv("COLUMNS", "200")
    falls_back(demo, "codex")
    claude, codex = LimitedAgent("claude", HOUR), Named("codex")
    number = demo.issue("farewell")
    result = demo.hero(number, runtime=agents(claude, codex=codex))
    assert result.run is not None
    assert demo.state(number) is WorkflowState.DONE
    tasks = demo.project.store.list_tasks(result.run.id)
    assert {t.status.value for t in tasks} == {"done"}
    assert all(t.attempts == 1 for t in tasks)
    # Claude was asked once: its limit, recorded, sends the later phases straight on.
    assert [b.phase for b in claude.briefs] == ["research"]
    assert [b.phase for b in codex.briefs] == ["research", "plan", "review", "implement"]
    assert all(b.agent == "codex" for b in codex.briefs)
    wait = demo.project.store.provider_wait("claude")
    assert wait is not None
    assert wait.until > time.time() + HOUR - 60
    # Charged to the agent that ran: the limited run's tokens to claude, the rest to codex.
    charges = demo.project.store.charges(result.run.id)
    assert [(c.agent, c.phase) for c in charges if c.agent == "claude"] == [("claude", "research")]
    assert {c.phase for c in charges if c.agent == "codex"} == {
        "research",
        "plan",
        "review",
        "implement",
    }
    research = next(t for t in tasks if t.subject.startswith("Research"))
    logs = list(demo.folder.glob(f".ralph/runs/{result.run.id}/task-{research.id}.log"))
    assert len(logs) == 1
    log = logs[0].read_text()
    assert "Continued on codex: claude rate limited until " in log
    assert re.search(r"agent run 1: .* rate_limited .*\n(.*\n)*agent run 2: codex", log), log
    shown = run_show(result.run.id, capsys)
    # The time, and the day before it when the reset falls on another (run near midnight).
    said = re.findall(
        r"Continued on codex: claude rate limited until (?:\d{4}-\d{2}-\d{2} )?[0-9:]+ \([^)]+\)",
        shown,
    )
    assert said, shown
    assert "(usage limit reached)" in said[0]


def test_a_limit_that_lifts_before_the_threshold_is_waited_out_not_fallen_back(demo: Demo):
    falls_back(demo, "codex")
    claude, codex = LimitedAgent("claude", 60), Named("codex")
    number = demo.issue("farewell")
    outcome = _runner(demo, agents(claude, codex=codex)).run("research", number)
    assert (outcome.status, outcome.waiting_for) == (PhaseStatus.WAITING, "the provider of claude")
    assert codex.briefs == []
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED


def _runner(demo: Demo, runtime: AgentRuntime) -> PhaseRunner:
    return PhaseRunner(demo.project, runtime, owner="test")


def test_an_outcome_names_both_agents_and_charges_each(demo: Demo):
    falls_back(demo, "codex", phase="research", after=60)
    claude, codex = LimitedAgent("claude", 120, "429 rate_limit_error"), Named("codex")
    number = demo.issue("farewell")
    outcome = _runner(demo, agents(claude, codex=codex)).run("research", number)
    assert outcome.ok
    assert any(
        line.startswith("Continued on codex: claude rate limited until ")
        and line.endswith("(429 rate_limit_error).")
        for line in outcome.lines
    ), outcome.lines
    assert [(run.status, run.agent_name) for run in outcome.agent_runs] == [
        (AgentStatus.RATE_LIMITED, "claude"),
        (AgentStatus.OK, "codex"),
    ]
    assert demo.state(number) is WorkflowState.READY_FOR_PLAN


def test_an_unsaid_reset_falls_back_when_it_repeats_and_is_backed_off_the_first_time(
    demo: Demo,
):
    falls_back(demo, "codex")
    claude, codex = LimitedAgent("claude", 0), Named("codex")
    number = demo.issue("farewell")
    runner = _runner(demo, agents(claude, codex=codex))
    first = runner.run("research", number)
    assert (first.status, first.waiting_for) == (PhaseStatus.WAITING, "the provider of claude")
    assert codex.briefs == []
    assert demo.project.store.provider_waits() == []  # remembered, holding nothing back
    outcome = runner.run("research", number)
    assert outcome.ok
    said = "Continued on codex: claude rate limited (no reset said)"
    assert any(line.startswith(said) for line in outcome.lines), outcome.lines


def test_an_unsaid_reset_long_after_the_last_limit_is_a_first_again(demo: Demo):
    store = demo.project.store
    store.wait_for_provider("claude", time.time() + 5, "overloaded")
    said: list[str] = []

    def attempt(agent: str) -> str:
        if agent == "":
            raise ProviderLimited("claude", 0, "overloaded")
        return f"done on {agent}"

    def chain(later: float) -> FallbackChain:
        clock = lambda: time.time() + later  # noqa: E731
        return FallbackChain(
            "claude", ["codex"], after_seconds=60, store=store, say=said.append, clock=clock
        )

    # Within the minute of the last limit: a repeat, which falls back ...
    assert chain(later=0).run(attempt) == "done on codex"
    assert said == ["Continued on codex: claude rate limited (no reset said) (overloaded)."]
    # ... two minutes after it: a first again, backed off.
    with pytest.raises(ProviderLimited):
        chain(later=120).run(attempt)
    assert len(said) == 1


def test_a_fallback_that_is_limited_too_moves_on_and_all_limited_waits_for_the_soonest(
    demo: Demo,
):
    falls_back(demo, "codex", "gemini")
    claude = LimitedAgent("claude", 3 * HOUR)
    codex, gemini = LimitedAgent("codex", 2 * HOUR), LimitedAgent("gemini", HOUR)
    number = demo.issue("farewell")
    runner = _runner(demo, agents(claude, codex=codex, gemini=gemini))
    outcome = runner.run("research", number)
    # The soonest reset of the three is what the phase waits for.
    assert (outcome.status, outcome.waiting_for) == (PhaseStatus.WAITING, "the provider of gemini")
    assert len(claude.briefs) == len(codex.briefs) == len(gemini.briefs) == 1
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED

    # The limits now in the store are not asked again while they last.
    again = runner.run("research", number)
    assert again.waiting_for == "the provider of gemini"
    assert len(claude.briefs) == len(codex.briefs) == len(gemini.briefs) == 1


def test_an_agent_that_cannot_work_here_falls_back(demo: Demo):
    falls_back(demo, "codex")
    claude, codex = UnusableAgent(env={}), Named("codex")
    number = demo.issue("farewell")
    outcome = _runner(demo, agents(claude, codex=codex)).run("research", number)
    assert outcome.ok
    assert any(
        s.startswith("Continued on codex: claude cannot work here") and "invalid x-api-key" in s
        for s in outcome.lines
    ), outcome.lines


def test_the_runner_names_the_fallbacks_its_runtime_opened(demo: Demo):
    falls_back(demo, "codex:o3", "gemini")
    both = agents(ScriptedRuntime(env={}), codex=Named("codex"), gemini=Named("gemini"))
    assert _runner(demo, both).fallbacks_for("plan") == ("codex:o3", "gemini")
    # --agent: one agent for every phase, no other opened.
    assert _runner(demo, ScriptedRuntime(env={})).fallbacks_for("plan") == ()


def test_without_a_fallback_that_works_the_unusable_agent_stops_the_phase(demo: Demo):
    falls_back(demo, "codex")
    claude, codex = UnusableAgent(env={}), UnusableAgent(env={})
    codex.name = "codex"
    number = demo.issue("farewell")
    with pytest.raises(ConfigError, match=r"the agent \(Claude Code|the agent \(.*\) cannot work"):
        _runner(demo, agents(claude, codex=codex)).run("research", number)
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED
