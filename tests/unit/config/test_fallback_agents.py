"""``fallback_agents``: the agents a phase continues on when its own is rate limited past
``fallback_after_seconds`` or cannot work here; per phase or for every phase, and a
mistake in them is one line."""

from __future__ import annotations

import pytest

from ralph.config._agent import AgentSettings, parse_agent_settings
from ralph.errors import ConfigError


def parse(data: object, **kwargs: object) -> AgentSettings:
    return parse_agent_settings(data, "ralph.toml", **kwargs)  # type: ignore[arg-type]


def test_no_fallback_by_default_and_a_limit_further_than_five_minutes_falls_back():
    settings = parse(None)
    assert settings.fallbacks_for("research") == ()
    assert settings.fallback_after_seconds == 300.0


def test_the_global_list_serves_every_phase_and_a_phase_list_wins():
    settings = parse(
        {
            "fallback_agents": ["codex", "gemini:gemini-2.5-pro"],
            "fallback_after_seconds": 60,
            "phases": {"implement": {"fallback_agents": ["opencode"]}},
        }
    )
    assert settings.fallbacks_for("research") == ("codex", "gemini:gemini-2.5-pro")
    assert settings.fallbacks_for("implement") == ("opencode",)
    assert settings.fallback_after_seconds == 60.0


def test_a_phase_on_the_global_fallback_agent_has_the_others_only():
    settings = parse(
        {"fallback_agents": ["codex", "gemini"], "phases": {"implement": {"preset": "codex"}}}
    )
    assert settings.fallbacks_for("implement") == ("gemini",)
    assert settings.fallbacks_for("plan") == ("codex", "gemini")


def test_one_agent_for_every_phase_leaves_no_fallback():
    settings = parse(
        {"fallback_agents": ["codex"], "phases": {"plan": {"fallback_agents": ["gemini"]}}},
        runtime_override="scripted",
    )
    assert settings.fallbacks_for("research") == ()
    assert settings.fallbacks_for("plan") == ()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"fallback_agents": ["codx"]},
            r"ralph.toml: agent.fallback_agents: unknown agent 'codx'; did you mean 'codex'\?",
        ),
        (
            {"fallback_agents": "codex"},
            r"agent.fallback_agents: 'codex' is not valid; expected a list of agent names "
            r"such as \[\"codex\", \"gemini:gemini-2.5-pro\"\]",
        ),
        (
            {"fallback_agents": ["codex", "codex:o3"]},
            "agent.fallback_agents: codex is named twice; keep one",
        ),
        (
            {"fallback_agents": ["claude"]},
            "agent.fallback_agents: claude runs the phases already; name another agent",
        ),
        (
            {"phases": {"implement": {"preset": "codex", "fallback_agents": ["codex"]}}},
            r"\[agent.phases.implement\] fallback_agents: codex runs the phases already",
        ),
        ({"fallback_after_seconds": 0}, "fallback_after_seconds: 0 is not valid"),
        (
            {"phases": {"plan": {"fallback_after_seconds": 9}}},
            "unknown setting 'fallback_after_seconds'",
        ),
    ],
)
def test_a_mistake_in_the_fallbacks_is_one_line(data, message):
    with pytest.raises(ConfigError, match=message) as raised:
        parse(data)
    assert "\n" not in str(raised.value)
