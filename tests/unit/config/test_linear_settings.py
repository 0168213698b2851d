"""The ``[linear]`` table and the API key: the team and endpoint from the file,
overridden by RALPH_LINEAR_*, the key from the environment only."""

from __future__ import annotations

import pytest

from ralph.config import (
    CONFIG_FILE,
    GitHubSettings,
    LinearSettings,
    linear_token,
    load_config,
    render_config,
)
from ralph.config._linear import parse_linear_settings
from ralph.errors import ConfigError

pytestmark = pytest.mark.timeout(30)


def test_the_table_and_the_environment_combine_key_by_key():
    env = {"RALPH_LINEAR_API_URL": "http://127.0.0.1:9/graphql"}
    settings = parse_linear_settings({"team": "eng"}, "ralph.toml", env)
    assert settings == LinearSettings(team="ENG", api_url="http://127.0.0.1:9/graphql")
    assert settings.url == "http://127.0.0.1:9/graphql"


def test_the_endpoint_is_linears_unless_named():
    assert LinearSettings(team="ENG").url == "https://api.linear.app/graphql"


def test_the_environment_names_the_team_over_the_file():
    settings = parse_linear_settings({"team": "ENG"}, "f", {"RALPH_LINEAR_TEAM": "OPS"})
    assert settings.team == "OPS"


@pytest.mark.parametrize("key", ["token", "api_key", "key"])
def test_an_api_key_in_the_file_is_refused_with_the_variable_to_use(key):
    with pytest.raises(ConfigError, match=f"linear.{key} is refused.*RALPH_LINEAR_TOKEN"):
        parse_linear_settings({"team": "ENG", key: "lin_api_x"}, "ralph.toml", {})


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"team": "ENG-12"}, "'ENG-12' is not a team key"),
        ({"team": 12}, "12 is not valid; expected a string"),
        ({"api_url": "api.linear.app"}, "'api.linear.app' is not a URL"),
        ({"teem": "ENG"}, "unknown setting linear.teem; did you mean linear.team"),
    ],
)
def test_mistakes_name_the_setting(table, message):
    with pytest.raises(ConfigError, match=message):
        parse_linear_settings(table, "ralph.toml", {})


def test_the_key_comes_from_ralphs_variable_first_then_linears():
    both = {"RALPH_LINEAR_TOKEN": "lin_api_ralph", "LINEAR_API_KEY": "lin_api_other"}
    assert linear_token(both) == "lin_api_ralph"
    assert linear_token({"LINEAR_API_KEY": "lin_api_other"}) == "lin_api_other"


def test_no_key_or_a_placeholder_says_which_variable_to_set():
    for env in ({}, {"RALPH_LINEAR_TOKEN": "${RALPH_LINEAR_TOKEN}"}):
        with pytest.raises(ConfigError, match="set RALPH_LINEAR_TOKEN"):
            linear_token(env)


def test_a_team_is_required_by_name():
    with pytest.raises(ConfigError, match=r"needs linear.team \(or RALPH_LINEAR_TEAM\)"):
        LinearSettings().require("ralph.toml")


def test_ralph_toml_reads_the_linear_table(tmp_path):
    (tmp_path / "ralph.toml").write_text('[linear]\nteam = "ENG"\n')
    assert load_config(tmp_path, env={}).linear.team == "ENG"


def test_a_linear_tracker_keeps_its_pull_requests_locally_unless_told(tmp_path):
    (tmp_path / "ralph.toml").write_text('tracker = "linear"\n[linear]\nteam = "ENG"\n')
    config = load_config(tmp_path, env={})
    assert (config.tracker, config.code_host_kind) == ("linear", "local")


def test_a_linear_tracker_may_use_github_for_pull_requests_without_a_board(tmp_path):
    (tmp_path / "ralph.toml").write_text(
        'tracker = "linear"\ncode_host = "github"\n[linear]\nteam = "ENG"\n'
        '[github]\nowner = "acme"\nrepo = "shop"\n'
    )
    assert load_config(tmp_path, env={}).code_host_kind == "github"


def test_a_linear_tracker_without_a_team_is_refused_with_the_setting_to_add(tmp_path):
    (tmp_path / "ralph.toml").write_text('tracker = "linear"\n')
    with pytest.raises(ConfigError, match=r"needs linear\.team"):
        load_config(tmp_path, env={})


def test_the_file_init_writes_for_linear_with_github_pull_requests_loads_without_a_board(
    tmp_path,
):
    (tmp_path / CONFIG_FILE).write_text(
        render_config(
            repo="greet",
            base_branch="main",
            tracker=LinearSettings(team="ENG"),
            code_host=GitHubSettings(owner="acme", repo="greet"),
        )
    )
    config = load_config(tmp_path, env={})
    assert (config.tracker, config.code_host_kind) == ("linear", "github")
    assert (config.github.owner, config.github.repo, config.github.project) == ("acme", "greet", 0)
    assert config.linear.team == "ENG"
    assert config.merge_policy == "approval"  # pull requests on GitHub are reviewed
