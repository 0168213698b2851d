"""The real Claude Code CLI is sent exactly the phase's tools, and a research run hands a
search to one of its helper sub-agents, which the CLI runs against the same model."""

from __future__ import annotations

from ralph.runtimes import AgentStatus
from ralph.runtimes.claude import ClaudeRuntime
from ralph.workflow import PHASE_SPECS

from ...fakes.anthropic_api import Text, ToolUse
from .conftest import MODEL

RESEARCH = next(s for s in PHASE_SPECS if s.name == "research")
LOCATOR_ANSWER = "greet is defined at greet/core.py:1"


def runtime(api, home) -> ClaudeRuntime:
    return ClaudeRuntime(model=MODEL, env=api.environment(str(home)))


def test_a_plan_run_is_sent_the_phase_tools_and_the_result_tool_only(fake_api, home, brief):
    api = fake_api([ToolUse("StructuredOutput", {"document": "d", "summary": "s"})])
    plan = next(s for s in PHASE_SPECS if s.name == "plan")
    result = runtime(api, home).run(brief(phase="plan", role="builder", tools=plan.tools))
    assert result.status is AgentStatus.OK, result.error
    assert sorted(api.turns[0].tool_names) == sorted([*plan.tools, "StructuredOutput"])


def test_a_research_run_calls_a_helper_that_answers_from_the_same_model(fake_api, home, brief):
    api = fake_api(
        [
            ToolUse(
                "Agent",
                {
                    "subagent_type": "codebase-locator",
                    "description": "Find greet",
                    "prompt": "Where is greet defined?",
                    "run_in_background": False,
                },
            ),
            Text(LOCATOR_ANSWER),  # the helper's own run
            ToolUse("StructuredOutput", {"document": "d", "summary": "s"}),
        ]
    )
    research = brief(tools=RESEARCH.tools, helpers=RESEARCH.helpers)
    result = runtime(api, home).run(research)
    assert result.status is AgentStatus.OK, result.error
    first, helper, last = api.turns[:3]
    # Research sees its tools and the one that starts a helper; the helper only its own.
    assert sorted(first.tool_names) == sorted([*RESEARCH.tools, "Agent", "StructuredOutput"])
    assert sorted(helper.tool_names) == ["Glob", "Grep"]
    assert "You locate code." in helper.system + "\n".join(helper.texts())
    assert "Where is greet defined?" in "\n".join(helper.texts())
    # The helper's conclusion came back to research as the tool's result.
    assert LOCATOR_ANSWER in str(last.tool_results()[-1]["content"])
