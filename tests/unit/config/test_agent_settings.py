"""The [agent] table: runtime, model and limits, per phase; mistakes are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config._agent import PHASE_NAMES, ROLE_NAMES, AgentSettings, parse_agent_settings
from ralph.errors import ConfigError
from ralph.phases import PHASES
from ralph.workflow import PHASE_SPECS

#: The model each agent phase's Claude Code runs when ralph.toml names none.
DEFAULT_MODELS = {s.name: s.default_model for s in PHASE_SPECS if s.uses_agent}


def parse(data: object, **kwargs: object) -> AgentSettings:
    return parse_agent_settings(data, "ralph.toml", **kwargs)  # type: ignore[arg-type]


def test_defaults_run_claude_code_headless():
    settings = parse(None)
    assert settings.runtime == "claude"
    assert settings.permission_mode == "dontAsk"
    assert settings.max_turns == 50


def test_a_phase_table_overrides_only_what_it_names():
    settings = parse(
        {
            "model": "sonnet",
            "max_turns": 40,
            "phases": {"research": {"model": "opus", "max_usd": 2}},
        }
    )
    research = settings.for_phase("research")
    assert (research.model, research.max_turns, research.max_usd) == ("opus", 40, 2.0)
    plan = settings.for_phase("plan")
    assert (plan.model, plan.max_turns) == ("sonnet", 40)


def test_the_environment_picks_the_runtime():
    assert parse({"runtime": "claude"}, runtime_override="scripted").runtime == "scripted"


def test_phase_names_are_the_phases():
    assert tuple(PHASES) == PHASE_NAMES


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"modle": "x"}, "unknown setting 'modle'"),
        ({"max_turns": 0}, "expected a whole number >= 1"),
        ({"max_turns": "many"}, "expected a number"),
        ({"timeout_seconds": 0}, "expected a finite number >= 1"),
        ({"timeout_seconds": float("inf")}, "inf is not valid; expected a finite number >= 1"),
        ({"timeout_seconds": float("nan")}, "nan is not valid; expected a finite number >= 1"),
        ({"stall_seconds": float("nan")}, "nan is not valid"),
        ({"max_usd": True}, "True is not valid; expected a finite number >= 0.01, or 0 for no cap"),
        ({"max_turns": 2.5}, "expected a whole number >= 1"),
        ({"allow_bypass": "yes"}, "expected true or false"),
        ({"permission_mode": "ask"}, "use one of dontAsk, acceptEdits, bypassPermissions"),
        ({"permission_mode": "bypassPermissions"}, "set agent.allow_bypass = true to opt in"),
        ({"format": "xml"}, "use one of plain, claude, codex"),
        ({"phases": {"deploy": {}}}, "unknown phase; phases are: triage"),
        ({"phases": {"plan": {"runtime": "x"}}}, "unknown setting 'runtime'"),
        ([1], "[agent] must be a table"),
    ],
)
def test_mistakes_name_the_setting_and_the_fix(data, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse(data)


def test_bypass_with_the_opt_in_is_accepted():
    settings = parse({"permission_mode": "bypassPermissions", "allow_bypass": True})
    assert settings.permission_mode == "bypassPermissions"


def test_with_no_model_named_claude_runs_each_phases_default():
    settings = parse(None)
    models = {phase: settings.for_phase(phase).model for phase in DEFAULT_MODELS}
    assert models == DEFAULT_MODELS
    assert models["triage"] == "haiku"  # the cheap one sorts issues
    assert models["plan"] == "sonnet"  # every account may use it


def test_a_model_the_person_names_anywhere_wins_over_the_table():
    assert parse({"model": "default"}).for_phase("triage").model == "default"
    roles = parse({"roles": {"analyst": {"model": "opus"}}})
    assert [roles.for_phase(p).model for p in ("triage", "research")] == ["opus", "opus"]
    assert roles.for_phase("plan").model == DEFAULT_MODELS["plan"]


def test_a_phase_table_wins_over_its_roles_table_which_wins_over_agent():
    settings = parse(
        {
            "model": "sonnet",
            "max_turns": 40,
            "roles": {"builder": {"model": "haiku", "max_turns": 30}},
            "phases": {"plan": {"model": "opus"}},
        }
    )
    plan, implement = settings.for_phase("plan"), settings.for_phase("implement")
    assert (plan.model, plan.max_turns) == ("opus", 30)
    assert (implement.model, implement.max_turns) == ("haiku", 30)
    assert settings.for_phase("review").max_turns == 40


def test_other_runtimes_get_no_claude_model_from_the_table():
    settings = parse({"runtime": "command", "command": "codex exec -"})
    assert settings.for_phase("triage").model == ""


def test_roles_are_those_whose_phases_run_agents():
    assert ROLE_NAMES == ("analyst", "builder", "validator")
    with pytest.raises(ConfigError, match=r"\[agent.roles.integrator\]: unknown role"):
        parse({"roles": {"integrator": {"model": "haiku"}}})


def test_the_agents_guide_table_of_default_models_is_the_one_in_force():
    guide = (Path(__file__).parents[3] / "docs" / "agents.md").read_text()
    rows = {
        line.split("|")[1].strip(): line.split("|")[3].strip(" `")
        for line in guide.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip() in DEFAULT_MODELS
    }
    assert rows == DEFAULT_MODELS


# -- agents per phase ---------------------------------------------------------------------


def test_a_preset_names_the_agent_instead_of_the_runtime():
    settings = parse({"preset": "codex"})
    assert settings.agent == "codex"
    assert {settings.agent_for(phase) for phase in PHASE_NAMES} == {"codex"}
    assert settings.for_phase("research").model == ""  # Codex's own choice


def test_a_phase_or_role_table_chooses_its_agent():
    settings = parse(
        {
            "phases": {"implement": {"preset": "codex"}},
            "roles": {"validator": {"preset": "gemini"}},
        }
    )
    assert settings.agent_for("research") == "claude"
    assert settings.agent_for("implement") == "codex"
    assert settings.agent_for("plan") == "claude"  # a builder, but the table is implement's
    assert settings.agent_for("review") == "gemini"


def test_a_model_goes_only_to_the_phases_of_its_tables_agent():
    settings = parse(
        {
            "model": "opus",
            "max_turns": 30,
            "phases": {"implement": {"preset": "codex"}, "plan": {"preset": "opencode"}},
            "roles": {"builder": {"model": "gpt-5.5", "preset": "codex"}},
        }
    )
    research = settings.for_phase("research")
    assert (research.model, research.max_turns) == ("opus", 30)
    # implement's table chose Codex, as its role's did: the role's model is Codex's.
    assert settings.for_phase("implement").model == "gpt-5.5"
    # plan chose opencode: neither Claude's "opus" nor the role's Codex model is its.
    plan = settings.for_phase("plan")
    assert (plan.model, plan.max_turns) == ("", 30)  # limits still come from above


def test_a_claude_phase_under_another_agent_runs_claudes_default_model():
    settings = parse(
        {"preset": "codex", "model": "gpt-5.5", "phases": {"review": {"preset": "claude"}}}
    )
    assert settings.for_phase("review").model == DEFAULT_MODELS["review"]
    assert settings.for_phase("plan").model == "gpt-5.5"


def test_the_environment_puts_one_agent_on_every_phase():
    settings = parse(
        {"preset": "codex", "phases": {"implement": {"preset": "gemini"}}},
        runtime_override="scripted",
    )
    assert {settings.agent_for(phase) for phase in PHASE_NAMES} == {"scripted"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"preset": "cursor"},
            "ralph.toml: agent.preset: unknown agent 'cursor'; known agents: "
            "claude, codex, gemini, opencode",
        ),
        (
            {"phases": {"implement": {"preset": "aider"}}},
            "ralph.toml: [agent.phases.implement] "
            "preset: unknown agent 'aider'; known agents: claude, codex, gemini, opencode",
        ),
        ({"roles": {"builder": {"preset": 3}}}, "[agent.roles.builder] preset: 3 is not valid"),
        (
            {"runtime": "command", "preset": "codex"},
            "agent.runtime and agent.preset both name "
            'the agent; keep one (preset = "codex" needs no runtime)',
        ),
    ],
)
def test_a_wrong_agent_is_one_line_listing_the_known_ones(data, message):
    with pytest.raises(ConfigError) as error:
        parse(data)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_run_that_puts_another_agent_on_a_phase_takes_that_agents_models():
    settings = parse(
        {"model": "opus", "phases": {"implement": {"preset": "codex", "model": "gpt-5.5"}}}
    )
    # `--agent codex` on research: Claude's "opus" is not Codex's.
    assert settings.for_phase("research", "codex").model == ""
    assert settings.for_phase("implement", "codex").model == "gpt-5.5"
    # `--agent claude` on implement: the Codex model is not Claude's; [agent]'s is.
    assert settings.for_phase("implement", "claude").model == "opus"


def test_best_of_is_read_for_the_implementation():
    settings = parse(
        {
            "phases": {
                "implement": {
                    "best_of": 3,
                    "best_of_agents": ["claude", "codex:o3"],
                    "select": "review",
                    "max_turns": 9,
                }
            }
        }
    )
    best = settings.best_of_for("implement")
    assert (best.count, best.agents, best.select) == (3, ("claude", "codex:o3"), "review")
    assert [best.agent_of(k) for k in (1, 2, 3)] == ["claude", "codex:o3", "claude"]
    assert settings.for_phase("implement").max_turns == 9
    assert parse(None).best_of_for("implement").count == 1
    # One agent for every phase (--agent) is one agent for every attempt too.
    assert (
        parse({"phases": {"implement": {"best_of_agents": ["codex"]}}}, runtime_override="scripted")
        .best_of_for("implement")
        .agents
        == ()
    )


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"implement": {"best_of": 0}}, "best_of: 0 is not valid; expected a whole number from 1"),
        ({"implement": {"best_of": 99}}, "best_of: 99 is not valid"),
        ({"implement": {"best_of": "3"}}, "best_of: '3' is not valid"),
        ({"implement": {"best_of_agents": "codex"}}, "expected a list of agent names"),
        ({"implement": {"best_of_agents": ["cursor"]}}, "unknown agent 'cursor'"),
        ({"implement": {"select": "vote"}}, "use one of score, review"),
        ({"plan": {"best_of": 2}}, "best_of only apply to implement"),
    ],
)
def test_best_of_mistakes_name_the_setting_and_the_fix(table, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        parse({"phases": table})
