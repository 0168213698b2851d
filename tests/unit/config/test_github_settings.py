"""The ``[github]`` table and the tokens: from the file, overridden by RALPH_GH_*, with
each mistake named and the fix given."""

from __future__ import annotations

import pytest

from ralph.config import GitHubSettings, load_config, render_config
from ralph.config._github import parse_github_settings
from ralph.errors import ConfigError
from ralph.project import github_tokens


def test_the_table_and_the_environment_combine_key_by_key():
    table = {"owner": "acme", "repo": "shop", "project": 3}
    env = {"RALPH_GH_PROJECT_NUMBER": "5", "RALPH_GH_API_URL": "https://ghe.example/api/graphql"}
    settings = parse_github_settings(table, "ralph.toml", env)
    assert (settings.owner, settings.repo, settings.project) == ("acme", "shop", 5)
    assert settings.url == "https://ghe.example/api/graphql"
    assert settings.board_owner == "acme"


def test_an_unexpanded_placeholder_counts_as_unset():
    settings = parse_github_settings(
        {"owner": "acme"}, "f", {"RALPH_GH_OWNER": "${RALPH_GH_OWNER}"}
    )
    assert settings.owner == "acme"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"project": "three"}, "'three' is not a project number"),
        ({"project": 0}, "0 is not a project number"),
        ({"colour": "red"}, "unknown setting github.colour"),
        ({"mutation_interval": -1}, r"mutation_interval \(seconds\): -1 is not valid"),
        ({"mutation_interval": float("nan")}, "nan is not valid; expected a finite number"),
        ({"api_url": "ghe.example"}, "'ghe.example' is not a URL"),
    ],
)
def test_mistakes_name_the_setting(table, message):
    with pytest.raises(ConfigError, match=message):
        parse_github_settings(table, "ralph.toml", {})


def test_the_github_tracker_needs_owner_repo_and_project(tmp_path):
    (tmp_path / "ralph.toml").write_text('tracker = "github"\n[github]\nowner = "acme"\n')
    with pytest.raises(ConfigError, match=r"needs github.repo \(or RALPH_GH_REPO\)"):
        load_config(tmp_path, env={})


def test_the_file_ralph_init_writes_for_a_board_loads_back(tmp_path):
    board = GitHubSettings(owner="acme", repo="shop", project=2)
    (tmp_path / "ralph.toml").write_text(
        render_config(repo="shop", base_branch="main", tracker=board)
    )
    config = load_config(tmp_path, env={})
    assert config.tracker == "github"
    assert (config.github.owner, config.github.repo, config.github.project) == ("acme", "shop", 2)
    assert config.github.mutation_interval == 1.0


def test_tokens_come_from_the_environment_with_the_originals_names():
    assert github_tokens({"RALPH_HERO_GITHUB_TOKEN": "a"}).repo == "a"
    tokens = github_tokens({"RALPH_GH_TOKEN": "a", "RALPH_GH_PROJECT_TOKEN": "b"})
    assert (tokens.get("repo"), tokens.get("board"), tokens.split) == ("a", "b", True)
    assert "a" not in repr(tokens)
    assert "b" not in repr(tokens)


def test_no_token_says_which_variable_to_set():
    with pytest.raises(ConfigError, match="set RALPH_GH_TOKEN"):
        github_tokens({"RALPH_GH_TOKEN": ""})


@pytest.mark.parametrize(
    ("api_url", "web"),
    [
        ("", "https://github.com"),
        ("https://api.github.com/graphql", "https://github.com"),
        ("https://ghe.example/api/graphql", "https://ghe.example"),
    ],
)
def test_people_browse_github_or_the_enterprise_server_the_api_belongs_to(api_url, web):
    assert GitHubSettings(api_url=api_url).web_url == web
