"""Token and session caps beside the dollar caps: whole numbers in ralph.toml or
RALPH_BUDGET_* variables (0: no cap), and what happens to a running agent when one is
reached (``budget_on_cap``: "finish" its turn, or "stop" it)."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, load_config, render_config
from ralph.errors import ConfigError

pytestmark = pytest.mark.timeout(30)

CAPS = (
    "budget_task_tokens",
    "budget_run_tokens",
    "budget_issue_tokens",
    "budget_day_tokens",
    "budget_day_sessions",
)


def test_the_file_ralph_init_writes_has_every_cap_off_and_lets_agents_finish(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(render_config(repo="shop", base_branch="main"))
    config = load_config(tmp_path, env={})
    assert [getattr(config, cap) for cap in CAPS] == [0, 0, 0, 0, 0]
    assert config.budget_on_cap == "finish"
    text = (tmp_path / CONFIG_FILE).read_text()
    for cap in (*CAPS, "budget_on_cap"):
        assert f"\n{cap} = " in text


@pytest.mark.parametrize("cap", CAPS)
def test_each_cap_is_read_from_the_file_and_its_variable_wins(tmp_path, cap):
    (tmp_path / CONFIG_FILE).write_text(f"{cap} = 5000\n")
    assert getattr(load_config(tmp_path, env={}), cap) == 5000
    variable = f"RALPH_{cap.upper()}"
    assert getattr(load_config(tmp_path, env={variable: "70"}), cap) == 70


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("budget_run_tokens = 1.5", "budget_run_tokens: 1.5 is not valid; expected a whole number"),
        ("budget_day_sessions = -2", "budget_day_sessions: -2 is not valid; expected a whole"),
        ('budget_issue_tokens = "lots"', "budget_issue_tokens: 'lots' is not valid"),
        (
            'budget_on_cap = "pause"',
            'budget_on_cap: \'pause\' is not valid; expected "finish" or "stop"',
        ),
    ],
)
def test_a_bad_cap_is_refused_in_one_line(tmp_path, line, message):
    (tmp_path / CONFIG_FILE).write_text(line + "\n")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path, env={})


def test_budget_on_cap_stop_is_taken_from_the_environment(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("")
    assert load_config(tmp_path, env={"RALPH_BUDGET_ON_CAP": "stop"}).budget_on_cap == "stop"
