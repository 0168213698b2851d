"""Research hands searches to sub-agents (codebase-locator, codebase-analyzer,
codebase-pattern-finder) defined in the plugin's agents folder; Claude Code gets them,
with the tool that starts them, for research alone."""

from __future__ import annotations

from pathlib import Path

from ralph.runtimes import AgentBrief
from ralph.runtimes.claude._helpers import TASK_TOOL, helper_definitions
from ralph.runtimes.claude._options import option_values
from ralph.workflow import PHASE_SPECS

HELPERS = ("codebase-locator", "codebase-analyzer", "codebase-pattern-finder")


def brief(phase: str) -> AgentBrief:
    spec = next(s for s in PHASE_SPECS if s.name == phase)
    return AgentBrief(
        phase=phase,
        role=spec.role,
        issues=(),
        instructions="Do it.",
        workdir=Path("/work"),
        tools=spec.tools,
        helpers=spec.helpers,
    )


def test_research_alone_has_helpers():
    assert {s.name: s.helpers for s in PHASE_SPECS if s.helpers} == {"research": HELPERS}


def test_each_helper_definition_parses_with_read_only_tools_and_a_prompt():
    found = helper_definitions(HELPERS)
    assert sorted(found) == sorted(HELPERS)
    for name, definition in found.items():
        assert definition["description"], name
        assert definition["prompt"].startswith("You "), name
        assert set(definition["tools"]) <= {"Read", "Glob", "Grep"}, name
        assert definition["model"] == "sonnet", name


def test_a_research_run_gets_the_helpers_and_the_tool_that_starts_them():
    values = option_values(brief("research"), session_id="s", environ={})
    assert sorted(values["agents"]) == sorted(HELPERS)
    assert values["tools"] == ["Read", "Glob", "Grep", "Write", TASK_TOOL]
    assert TASK_TOOL in values["allowed_tools"]


def test_other_phases_get_neither_helpers_nor_the_task_tool():
    for phase in ("triage", "plan", "review", "implement"):
        values = option_values(brief(phase), session_id="s", environ={})
        assert "agents" not in values, phase
        assert TASK_TOOL not in values["tools"], phase
