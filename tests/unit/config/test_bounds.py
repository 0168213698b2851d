"""Every number in ralph.toml and its RALPH_* variables has an upper bound: past it the
value is a typo (``max_turns = 99999999999999999999999``), refused in one line that
names the setting and the bound, and the bound itself is taken."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.config import (
    CONFIG_FILE,
    AgentSettings,
    Config,
    GitHubSettings,
    HookSettings,
    MergeWaitSettings,
    load_config,
)
from ralph.errors import ConfigError

#: (TOML table or "" for the top level, key, the largest value taken).
BOUNDS = [
    ("", "budget_task_usd", 100_000),
    ("", "budget_run_usd", 100_000),
    ("", "budget_day_usd", 100_000),
    ("", "budget_task_tokens", 1_000_000_000_000),
    ("", "budget_run_tokens", 1_000_000_000_000),
    ("", "budget_issue_tokens", 1_000_000_000_000),
    ("", "budget_day_tokens", 1_000_000_000_000),
    ("", "budget_day_sessions", 100_000),
    ("", "budget_stall_tokens", 10**12),
    ("", "budget_stall_usd", 100_000),
    ("", "stuck_threshold_hours", 8760),
    ("", "max_concurrent_roots", 64),
    ("", "max_concurrent_agents", 64),
    ("", "max_team_workers", 64),
    ("", "poll_seconds", 86400),
    ("", "hygiene_interval", 8760),
    ("", "max_fix_rounds", 100),
    ("", "merge_batch", 50),
    ("wip_limits", '"In Progress"', 10_000),
    ("max_concurrent_phases", "implement", 64),
    ("max_role_workers", "validator", 64),
    ("agent", "max_turns", 1000),
    ("agent", "max_usd", 100_000),
    ("agent", "timeout_seconds", 86400),
    ("agent", "stall_seconds", 86400),
    ("agent", "fallback_after_seconds", 86400),
    ("agent.phases.research", "max_turns", 1000),
    ("agent.roles.builder", "timeout_seconds", 86400),
    ("hooks", "timeout_seconds", 86400),
    ("merge", "wait_seconds", 86400),
    ("merge", "max_wait_seconds", 86400),
    ("github", "mutation_interval", 3600),
    ("github", "project", 2**31 - 1),
]


def _file(table: str, key: str, value: object) -> str:
    head = f"[{table}]\n" if table else ""
    return f"{head}{key} = {value}\n"


@pytest.mark.parametrize(("table", "key", "bound"), BOUNDS, ids=[f"{t}.{k}" for t, k, _ in BOUNDS])
def test_a_number_past_its_bound_is_refused_naming_the_setting_and_the_bound(
    tmp_path, table, key, bound
):
    (tmp_path / CONFIG_FILE).write_text(_file(table, key, "99999999999999999999999"))
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path, env={})
    message = str(refused.value)
    assert "\n" not in message
    assert key.strip('"') in message
    assert "99999999999999999999999" in message
    assert f"at most {bound:g}" in message or f"at most {bound}" in message


@pytest.mark.parametrize(("table", "key", "bound"), BOUNDS, ids=[f"{t}.{k}" for t, k, _ in BOUNDS])
def test_the_bound_itself_is_taken(tmp_path, table, key, bound):
    lines = _file(table, key, bound)
    if table == "github":  # a github board needs the rest of its table too
        lines = '[github]\nowner = "o"\nrepo = "r"\n' + lines.removeprefix("[github]\n")
    if (table, key) == ("merge", "wait_seconds"):  # the longest wait must be at least it
        lines += f"max_wait_seconds = {bound}\n"
    (tmp_path / CONFIG_FILE).write_text(lines)
    load_config(tmp_path, env={})


def test_a_float_too_large_for_a_number_and_a_variable_are_refused_the_same_way(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("[agent]\nmax_turns = 1e23\n")
    with pytest.raises(ConfigError, match=r"agent.max_turns: 1e\+23 is too large; at most 1000"):
        load_config(tmp_path, env={})
    (tmp_path / CONFIG_FILE).write_text("")
    with pytest.raises(
        ConfigError, match="RALPH_MAX_CONCURRENT_AGENTS: '1e23' is too large; at most 64"
    ):
        load_config(tmp_path, env={"RALPH_MAX_CONCURRENT_AGENTS": "1e23"})
    big = "9" * 400  # past a float's range
    (tmp_path / CONFIG_FILE).write_text(f"max_concurrent_roots = {big}\n")
    with pytest.raises(ConfigError, match="is too large; at most 64"):
        load_config(tmp_path, env={})


def test_every_numeric_setting_has_a_bound_here():
    numeric = {
        f.name
        for settings in (Config, AgentSettings, HookSettings, MergeWaitSettings, GitHubSettings)
        for f in dataclasses.fields(settings)
        if f.type in ("int", "float", "dict[str, int]")
    }
    named = {"store": "store_url"}
    covered = {named.get(k, k) for _, k, _ in BOUNDS} | {t for t, _, _ in BOUNDS}
    assert numeric <= covered, f"no bound tested for {sorted(numeric - covered)}"


#: (TOML table or "" for the top level, key, a positive value too small to mean anything,
#: the smallest taken): below it a timeout, a pause or a cap is a typo that would spin a
#: core (``poll_seconds = 1e-300``) or stop every run at once.
LOWER_BOUNDS = [
    ("", "poll_seconds", "1e-300", 1),
    ("", "budget_task_usd", "1e-320", 0.01),
    ("", "budget_run_usd", "1e-320", 0.01),
    ("", "budget_day_usd", "0.001", 0.01),
    ("agent", "timeout_seconds", "0.5", 1),
    ("agent", "stall_seconds", "1e-320", 1),
    ("agent", "max_usd", "1e-320", 0.01),
    ("agent.roles.builder", "timeout_seconds", "1e-320", 1),
    ("hooks", "timeout_seconds", "0.5", 1),
    ("notify", "timeout_seconds", "1e-320", 1),
    ("merge", "wait_seconds", "1e-320", 0.1),
    ("merge", "max_wait_seconds", "0.01", 0.1),
]


@pytest.mark.parametrize(
    ("table", "key", "tiny", "least"), LOWER_BOUNDS, ids=[f"{t}.{k}" for t, k, _, _ in LOWER_BOUNDS]
)
def test_a_value_below_its_lower_bound_is_refused_naming_setting_value_and_range(
    tmp_path, table, key, tiny, least
):
    (tmp_path / CONFIG_FILE).write_text(_file(table, key, tiny))
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path, env={})
    message = str(refused.value)
    assert "\n" not in message
    assert key in message
    assert f"{float(tiny)!r} is not valid" in message
    assert f">= {least:g}" in message


@pytest.mark.parametrize(
    ("table", "key", "tiny", "least"), LOWER_BOUNDS, ids=[f"{t}.{k}" for t, k, _, _ in LOWER_BOUNDS]
)
def test_the_lower_bound_itself_is_taken_and_a_cap_may_still_be_0_for_none(
    tmp_path, table, key, tiny, least
):
    lines = _file(table, key, least)
    if (table, key) == ("merge", "max_wait_seconds"):  # the first wait must be at most it
        lines += f"wait_seconds = {least}\n"
    (tmp_path / CONFIG_FILE).write_text(lines)
    load_config(tmp_path, env={})
    if key.endswith("_usd"):
        (tmp_path / CONFIG_FILE).write_text(_file(table, key, 0))
        load_config(tmp_path, env={})


def test_a_variable_below_the_lower_bound_is_refused_the_same_way(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("")
    with pytest.raises(ConfigError, match=r"RALPH_POLL_SECONDS: '1e-300' is not valid.*>= 1$"):
        load_config(tmp_path, env={"RALPH_POLL_SECONDS": "1e-300"})
