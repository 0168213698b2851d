"""A stop signal set from another thread ends an agent run at once, as ``stopped``, with
the first reason given: the scripted agent gives up its work (a delay or a hang), and a
brief still waiting for an agent slot stops waiting."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ralph.orchestrate import AgentSlots
from ralph.runtimes import AgentBrief, AgentStatus, Limits, StopSignal
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime


def _brief(phase: str = "research", timeout: float = 600.0) -> AgentBrief:
    return AgentBrief(
        phase=phase,
        role="analyst",
        issues=(),
        instructions="",
        workdir=Path("."),
        tools=(),
        limits=Limits(timeout_seconds=timeout),
    )


def _stop_later(signal: StopSignal, reason: str, after: float = 0.2) -> threading.Timer:
    timer = threading.Timer(after, signal.stop, args=(reason,))
    timer.start()
    return timer


def test_the_first_reason_stands_and_callbacks_run_once_even_when_added_late():
    signal, calls = StopSignal(), []
    signal.on_stop(lambda: calls.append("early"))
    assert not signal.stopped
    signal.stop("#2 was moved to Canceled")
    signal.stop("#2 was closed")
    signal.on_stop(lambda: calls.append("late"))
    assert signal.stopped
    assert signal.reason == "#2 was moved to Canceled"
    assert calls == ["early", "late"]
    assert signal.wait(0)


def test_a_hanging_scripted_agent_stops_at_once_when_asked():
    brief = _brief()
    _stop_later(brief.stop, "#2 was moved to Canceled")
    started = time.monotonic()
    result = ScriptedRuntime({"research": [AgentFault.HANG]}, env={}).run(brief)
    assert result.status is AgentStatus.STOPPED
    assert result.error == "#2 was moved to Canceled"
    assert result.result is None
    assert time.monotonic() - started < 5  # the hang would last the 600 s timeout


def test_a_slow_scripted_agent_stops_during_its_delay():
    brief = _brief()
    _stop_later(brief.stop, "#2 was closed")
    result = ScriptedRuntime(env={}, delay_seconds=600).run(brief)
    assert (result.status, result.error) == (AgentStatus.STOPPED, "#2 was closed")


def test_an_agent_that_ends_before_any_stop_keeps_its_result():
    result = ScriptedRuntime(env={}).run(_brief("triage"))
    assert result.status is not AgentStatus.STOPPED


def test_a_brief_waiting_for_an_agent_slot_stops_waiting_and_takes_none():
    runtime = ScriptedRuntime(env={}, delay_seconds=600)
    slots = AgentSlots(runtime, 1, {})
    holder, waiter = _brief(), _brief()
    first = threading.Thread(target=slots.run, args=(holder,), daemon=True)
    first.start()
    _stop_later(waiter.stop, "#3 was moved to Done")
    started = time.monotonic()
    result = slots.run(waiter)
    assert (result.status, result.error) == (AgentStatus.STOPPED, "#3 was moved to Done")
    assert time.monotonic() - started < 5
    assert len(runtime.briefs) == 1  # the waiting brief never reached the agent
    holder.stop.stop("done with the test")
    first.join(5)
    assert not first.is_alive()
