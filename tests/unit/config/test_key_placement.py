"""Where a key sits in ralph.toml: TOML puts every key after a ``[section]`` line in that
section, so a top-level setting appended to the file's end lands in its last table. The
refusal says so and how to fix it, and the file ``ralph init`` writes has every top-level
setting before its first table (so appending is the one way to get it wrong)."""

from __future__ import annotations

import tomllib

import pytest

from ralph.config import CONFIG_FILE, GitHubSettings, LinearSettings, load_config, render_config
from ralph.errors import ConfigError

RENDERED = {
    "local": render_config(repo="shop", base_branch="main"),
    "github": render_config(
        repo="shop", base_branch="main", tracker=GitHubSettings(owner="a", repo="shop", project=1)
    ),
    "linear": render_config(repo="shop", base_branch="main", tracker=LinearSettings(team="ENG")),
    "linear+github": render_config(
        repo="shop",
        base_branch="main",
        tracker=LinearSettings(team="ENG"),
        code_host=GitHubSettings(owner="a", repo="shop"),
    ),
}


@pytest.mark.parametrize("tracker", RENDERED)
def test_a_top_level_key_appended_to_the_file_says_to_move_it_above_the_first_section(
    tmp_path, tracker
):
    (tmp_path / CONFIG_FILE).write_text(RENDERED[tracker] + "poll_seconds = 10\n")
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path, env={})
    message = str(refused.value)
    assert "\n" not in message
    last_table = [line for line in RENDERED[tracker].splitlines() if line.startswith("[")][-1]
    assert message.endswith(
        f"poll_seconds is a top-level setting but is inside {last_table} (TOML puts every key "
        "after a [section] line in that section); move it above the first [section]"
    )


def test_a_top_level_key_in_a_nested_table_is_named_with_its_table(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('[agent.phases.plan]\nmodel = "opus"\nbase_branch = "x"\n')
    with pytest.raises(ConfigError, match=r"base_branch is a top-level setting but is inside "):
        load_config(tmp_path, env={})


def test_a_tables_own_key_of_the_same_name_is_its_own(tmp_path):
    (tmp_path / CONFIG_FILE).write_text(RENDERED["github"])
    assert load_config(tmp_path, env={}).github.repo == "shop"


@pytest.mark.parametrize("tracker", RENDERED)
def test_init_writes_every_top_level_setting_before_the_first_table(tracker):
    text = RENDERED[tracker]
    settings = {key for key, value in tomllib.loads(text).items() if not isinstance(value, dict)}
    head = text.split("\n[", 1)[0]
    assert settings == {key for key, value in tomllib.loads(head).items()}
