"""The guarded settings as the JSON values the store keeps, and back: what is kept is
what comes back in force, every table's fallback list and the prices' whole table
included; a value never accepted is the narrowest."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.config import AgentSettings, Config, ModelPrice, PhaseSettings
from ralph.project._guarded_values import guarded_values, with_values
from ralph.workflow import GUARDED_SETTINGS

AGENT = AgentSettings(
    max_usd=3.0,
    fallback_agents=("codex",),
    roles={"validator": PhaseSettings(model="opus", fallback_agents=("gemini",))},
    phases={"implement": PhaseSettings(max_turns=9, max_usd=5.0, fallback_agents=())},
)


def configured(root: Path) -> Config:
    return Config(
        root=root,
        budget_run_usd=5.0,
        budget_run_tokens=1500,
        budget_day_sessions=7,
        prices={"gpt-5-codex": ModelPrice(1.25, 0.125, 1.25, 10.0)},
        agent=AGENT,
    )


def test_every_guarded_setting_has_a_value_and_kept_ones_come_back_in_force(
    tmp_path: Path,
) -> None:
    config = configured(tmp_path)
    kept = json.loads(json.dumps(guarded_values(config)))  # as the store keeps them
    assert set(kept) == set(GUARDED_SETTINGS)
    assert kept["agent.fallback_agents"] == {
        "agent": ["codex"],
        "agent.roles.validator": ["gemini"],
        "agent.phases.implement": [],
    }
    assert kept["agent.max_usd"] == {"agent": 3.0, "agent.phases.implement": 5.0}
    assert with_values(config, kept) == config


def test_accepted_values_replace_ralph_merges_ones_and_leave_the_rest(tmp_path: Path) -> None:
    accepted = json.loads(json.dumps(guarded_values(configured(tmp_path))))
    merged = Config(
        root=tmp_path,
        agent=AgentSettings(
            model="sonnet",
            max_usd=1000.0,
            fallback_agents=("opencode",),
            phases={"research": PhaseSettings(max_usd=900.0, fallback_agents=("opencode",))},
        ),
        prices={"gpt-5-codex": ModelPrice(0, 0, 0, 0)},
    )
    in_force = with_values(merged, accepted)
    assert (in_force.budget_run_usd, in_force.budget_run_tokens) == (5.0, 1500)
    assert in_force.prices == configured(tmp_path).prices
    assert in_force.agent.model == "sonnet"
    assert in_force.agent.fallbacks_for("research") == ("codex",)
    assert in_force.agent.fallbacks_for("implement") == ()
    assert in_force.agent.fallbacks_for("review") == ("gemini",)
    assert in_force.agent.for_phase("research").max_usd == 3.0
    assert in_force.agent.for_phase("implement").max_usd == 5.0


def test_values_never_accepted_are_the_narrowest(tmp_path: Path) -> None:
    config = configured(tmp_path)
    in_force = with_values(config, dict.fromkeys(GUARDED_SETTINGS))
    assert in_force.budget_run_usd == 0.01  # a cent: 0 would be no cap
    assert (in_force.budget_run_tokens, in_force.budget_day_sessions) == (1, 1)
    assert in_force.prices == {}
    assert in_force.agent.fallbacks_for("implement") == ()
    assert in_force.agent.fallbacks_for("review") == ()
    # No run cap of its own: budget_task_usd applies.
    assert in_force.agent.for_phase("implement").max_usd == 0.0
