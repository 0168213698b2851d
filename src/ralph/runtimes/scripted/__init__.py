"""Deterministic in-process agents that do real work from the issue text; what tests and
``ralph demo`` run. Every report names them a simulated agent."""

from __future__ import annotations

from ralph.runtimes.scripted._runtime import (
    FAULTS_VARIABLE,
    AgentFault,
    ScriptedRuntime,
    parse_faults,
)

__all__ = ["FAULTS_VARIABLE", "AgentFault", "ScriptedRuntime", "parse_faults"]
