"""The ``[gitlab]`` table and the token: the project and URL from the file, overridden by
RALPH_GITLAB_*, the token from the environment only."""

from __future__ import annotations

import tomllib

import pytest

from ralph.config import GitLabSettings, gitlab_token, parse_gitlab_settings
from ralph.config._gitlab import gitlab_table
from ralph.errors import ConfigError

pytestmark = pytest.mark.timeout(30)


def test_the_table_and_the_environment_combine_key_by_key():
    env = {"RALPH_GITLAB_URL": "https://git.example.com/"}
    settings = parse_gitlab_settings({"project": "/acme/sub/app/"}, "ralph.toml", env)
    assert settings == GitLabSettings(project="acme/sub/app", url="https://git.example.com")
    assert settings.base_url == "https://git.example.com"


def test_gitlab_com_unless_named_and_the_environment_wins():
    assert GitLabSettings(project="a/b").base_url == "https://gitlab.com"
    settings = parse_gitlab_settings({"project": "a/b"}, "f", {"RALPH_GITLAB_PROJECT": "c/d"})
    assert settings.project == "c/d"


@pytest.mark.parametrize("key", ["token", "private_token", "access_token", "api_key"])
def test_a_token_in_the_file_is_refused_with_the_variable_to_use(key):
    with pytest.raises(ConfigError, match=f"gitlab.{key} is refused.*RALPH_GITLAB_TOKEN"):
        parse_gitlab_settings({key: "glpat-x"}, "ralph.toml", {})


@pytest.mark.parametrize("project", ["app", "acme/", "acme app/x", "acme/app#1"])
def test_a_project_that_is_no_path_is_refused_naming_the_form(project):
    with pytest.raises(ConfigError, match="group/project") as caught:
        parse_gitlab_settings({"project": project}, "ralph.toml", {})
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "gitlab.example.com",
        "https://gitlab.com/api/v4",
        "ftp://x",
        "https://gitlab.example.com/?x=1",
        'https://gitlab.example.com/"',
    ],
)
def test_a_url_that_is_no_instance_address_is_refused(url):
    with pytest.raises(ConfigError, match=r"https://gitlab\.example\.com"):
        parse_gitlab_settings({"project": "a/b", "url": url}, "ralph.toml", {})


def test_a_url_that_would_expose_the_token_is_refused_without_echoing_it():
    with pytest.raises(ConfigError, match="use https://") as plain:
        parse_gitlab_settings({"project": "a/b", "url": "http://git.example.com"}, "r", {})
    assert "\n" not in str(plain.value)
    with pytest.raises(ConfigError, match="user name or password") as inside:
        parse_gitlab_settings(
            {"project": "a/b", "url": "https://oauth2:glpat-secret@git.example.com"}, "r", {}
        )
    assert "glpat-secret" not in str(inside.value)
    local = parse_gitlab_settings({"project": "a/b", "url": "http://127.0.0.1:8768"}, "r", {})
    assert local.url == "http://127.0.0.1:8768"


def test_an_unknown_key_is_refused_with_a_suggestion():
    with pytest.raises(ConfigError, match=r"did you mean gitlab\.project"):
        parse_gitlab_settings({"projet": "a/b"}, "ralph.toml", {})


def test_the_project_is_required_where_gitlab_is_used():
    with pytest.raises(ConfigError, match="RALPH_GITLAB_PROJECT"):
        GitLabSettings().require("ralph.toml")


def test_the_token_comes_from_the_environment_only():
    assert gitlab_token({"GITLAB_TOKEN": "b", "RALPH_GITLAB_TOKEN": "a"}) == "a"
    assert gitlab_token({"RALPH_GITLAB_TOKEN": "${GL}", "GITLAB_TOKEN": "b"}) == "b"
    with pytest.raises(ConfigError, match="api scope"):
        gitlab_token({})


def test_the_table_init_writes_reads_back():
    written = GitLabSettings(project="acme/app", url="https://git.example.com")
    table = tomllib.loads(gitlab_table(written))["gitlab"]
    assert parse_gitlab_settings(table, "ralph.toml", {}) == written
    assert "url" not in tomllib.loads(gitlab_table(GitLabSettings(project="a/b")))["gitlab"]
