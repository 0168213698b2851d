"""Agents get the person's environment without credentials other than their own."""

from __future__ import annotations

import pytest

from ralph.runtimes._environment import scrubbed_environment


@pytest.mark.parametrize(
    "name",
    [
        "RALPH_GH_TOKEN",
        "RALPH_HERO_GITHUB_TOKEN",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "NPM_TOKEN",
        "RALPH_STORE_URL",
        "DATABASE_URL",
        "PGPASSWORD",
        "AWS_SECRET_ACCESS_KEY",
        "STRIPE_API_KEY",
        "MY_PASSWORD",
        "GITLAB_PAT",
        "SSH_AUTH_SOCK",
        "MY_SERVICE_AUTH",
        "NPM_CONFIG__AUTH",
        "RALPH_GH_API_URL",
    ],
)
def test_secrets_are_removed(name):
    assert scrubbed_environment({name: "x", "PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"])
def test_the_agents_own_model_keys_stay(name):
    assert scrubbed_environment({name: "k"}) == {name: "k"}


def test_a_password_inside_a_url_removes_the_variable_whatever_its_name():
    env = {"UPSTREAM": "https://user:URLPASS@ghe.example/api", "SITE": "https://ghe.example"}
    assert scrubbed_environment(env) == {"SITE": "https://ghe.example"}
