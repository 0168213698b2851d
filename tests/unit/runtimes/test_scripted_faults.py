"""Scripted faults are read from one line of text; a mistake there is one clear error."""

from __future__ import annotations

import pytest

from ralph.errors import ConfigError
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime, parse_faults


def test_faults_are_queued_per_phase_in_order():
    assert parse_faults("research=invalid-result*2, review=needs-iteration") == {
        "research": [AgentFault.INVALID_RESULT, AgentFault.INVALID_RESULT],
        "review": [AgentFault.NEEDS_ITERATION],
    }
    assert parse_faults("") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("research=explode", "bad scripted fault 'research=explode': write phase=fault"),
        ("deploy=fail", "the phase must be one of triage, split, research"),
        ("research=fail*x", "bad scripted fault"),
    ],
)
def test_a_bad_fault_names_the_mistake(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_faults(text)


def test_the_environment_and_the_constructor_add_up():
    runtime = ScriptedRuntime(
        {"plan": [AgentFault.FAIL]}, env={"RALPH_SCRIPTED_FAULTS": "plan=hang,research=crash"}
    )
    assert runtime.description == "simulated agent (scripted)"
    assert runtime._faults == {
        "plan": [AgentFault.HANG, AgentFault.FAIL],
        "research": [AgentFault.CRASH],
    }
