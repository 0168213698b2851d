"""The no-progress breaker's settings: off by default, read from ralph.toml or the
environment, a whole number of tokens and a dollar amount, refused in one line."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, load_config
from ralph.errors import ConfigError


def test_the_breaker_is_off_unless_set(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("")
    config = load_config(tmp_path, env={})
    assert (config.budget_stall_tokens, config.budget_stall_usd) == (0, 0.0)


def test_the_breaker_is_set_in_ralph_toml_and_the_environment_wins(tmp_path):
    (tmp_path / CONFIG_FILE).write_text("budget_stall_tokens = 400000\nbudget_stall_usd = 2.5\n")
    config = load_config(tmp_path, env={})
    assert (config.budget_stall_tokens, config.budget_stall_usd) == (400_000, 2.5)
    config = load_config(
        tmp_path, env={"RALPH_BUDGET_STALL_TOKENS": "50000", "RALPH_BUDGET_STALL_USD": "0"}
    )
    assert (config.budget_stall_tokens, config.budget_stall_usd) == (50_000, 0.0)
    assert isinstance(config.budget_stall_tokens, int)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RALPH_BUDGET_STALL_TOKENS": "1.5"}, "RALPH_BUDGET_STALL_TOKENS: '1.5' is not valid"),
        ({"RALPH_BUDGET_STALL_TOKENS": "-3"}, "expected a whole number >= 1, or 0 for no cap"),
        ({"RALPH_BUDGET_STALL_USD": "lots"}, "RALPH_BUDGET_STALL_USD: 'lots' is not valid"),
    ],
)
def test_a_bad_breaker_setting_is_refused_in_one_line(tmp_path, env, message):
    (tmp_path / CONFIG_FILE).write_text("")
    with pytest.raises(ConfigError, match=message) as refused:
        load_config(tmp_path, env=env)
    assert "\n" not in str(refused.value)
