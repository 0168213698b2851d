"""The [jira] table: the site, project, account and estimate field, with RALPH_JIRA_*
overrides; a status table checked against Ralph's states; no token in the file; the
table ralph init writes reads back the same."""

from __future__ import annotations

import tomllib

import pytest

from ralph.config._jira import JiraSettings, jira_table, jira_token, parse_jira_settings
from ralph.errors import ConfigError

TABLE = {
    "url": "https://acme.atlassian.net/",
    "project": "proj",
    "email": "ada@acme.com",
    "statuses": {"In Review": "Code Review", "Backlog": "Backlog"},
}


def test_the_table_is_read_with_keys_upper_cased_and_the_url_trimmed():
    settings = parse_jira_settings(TABLE, "ralph.toml", {})
    assert (settings.url, settings.project, settings.email) == (
        "https://acme.atlassian.net",
        "PROJ",
        "ada@acme.com",
    )
    assert settings.statuses == {"In Review": "Code Review"}
    assert settings.estimate_field == "Story point estimate"


def test_the_environment_overrides_the_file():
    env = {"RALPH_JIRA_PROJECT": "OPS", "RALPH_JIRA_ESTIMATE_FIELD": "T-shirt size"}
    settings = parse_jira_settings(TABLE, "ralph.toml", env)
    assert (settings.project, settings.estimate_field) == ("OPS", "T-shirt size")


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"token": "x"}, "jira.token is refused"),
        ({"project": "PROJ-12"}, "not a project key"),
        ({"url": "acme.atlassian.net"}, "not a URL"),
        ({"url": "https://ada:secret@acme.atlassian.net"}, "user name or password"),
        ({"url": "http://acme.atlassian.net"}, "use https://"),
        ({"email": "ada"}, "not an email address"),
        ({"statuses": {"Reviewing": "Code Review"}}, "not one of Ralph's states"),
        ({"statuses": {"Done": ""}}, "must be the name of a status"),
        ({"projekt": "PROJ"}, "did you mean jira.project"),
    ],
)
def test_bad_settings_are_refused_in_one_line(table, says):
    with pytest.raises(ConfigError, match=says) as refused:
        parse_jira_settings(table, "ralph.toml", {})
    assert "\n" not in str(refused.value)


def test_a_tracker_needs_the_project_site_and_account():
    with pytest.raises(ConfigError, match=r"jira\.url \(or RALPH_JIRA_URL\)"):
        JiraSettings(project="PROJ").require("ralph.toml")
    JiraSettings(project="PROJ", url="https://a.atlassian.net", email="a@b.c").require("x")


def test_the_token_comes_from_the_environment():
    assert jira_token({"RALPH_JIRA_TOKEN": "t1", "JIRA_API_TOKEN": "t2"}) == "t1"
    assert jira_token({"JIRA_API_TOKEN": "t2"}) == "t2"
    with pytest.raises(ConfigError, match="RALPH_JIRA_TOKEN"):
        jira_token({"RALPH_JIRA_TOKEN": "${JIRA}"})


def test_the_table_init_writes_reads_back_with_every_state_mapped():
    settings = parse_jira_settings(TABLE, "ralph.toml", {})
    written = tomllib.loads(jira_table(settings))
    assert len(written["jira"]["statuses"]) == 11
    assert written["jira"]["statuses"]["In Review"] == "Code Review"
    assert parse_jira_settings(written["jira"], "ralph.toml", {}) == settings


def test_the_url_keeps_no_secret_and_http_is_for_this_machine_only():
    with pytest.raises(ConfigError) as refused:
        parse_jira_settings({"url": "https://ada:s3cret@acme.atlassian.net"}, "ralph.toml", {})
    assert "s3cret" not in str(refused.value)
    for local in ("http://127.0.0.1:8080", "http://localhost:9", "http://[::1]:8080"):
        assert parse_jira_settings({"url": local}, "ralph.toml", {}).url == local


def test_the_table_init_writes_escapes_what_it_writes():
    settings = JiraSettings(
        url="https://acme.atlassian.net",
        project="PROJ",
        email="ada@acme.com",
        estimate_field='Points "story" \\ size',
        statuses={"In Review": 'Review "code"\\'},
    )
    written = tomllib.loads(jira_table(settings))
    assert parse_jira_settings(written["jira"], "ralph.toml", {}) == settings
