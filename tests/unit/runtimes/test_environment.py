"""Agents and the test command get an environment built from an allow-list: what a
program needs to run, the variables ralph.toml's ``sandbox_env`` names, and (agents
only) their CLI's own settings and model key. A variable of any other name stays out,
whatever it holds."""

from __future__ import annotations

import pytest

from ralph.runtimes import agent_environment, environment_for_tests

#: The person's environment: what programs need, a secret of a name no list knows, and
#: the agents' own keys and settings.
PERSON = {
    "PATH": "/usr/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "SLACK_WEBHOOK_URL": "https://hooks.example/T000/SLACKPLANTED0013",
    "ANTHROPIC_API_KEY": "sk-ant-key",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "CLAUDE_CONFIG_DIR": "/home/me/.claude",
    "JAVA_HOME": "/opt/java",
}


@pytest.mark.parametrize(
    "name",
    [
        "SLACK_WEBHOOK_URL",
        "RALPH_GH_TOKEN",
        "GITHUB_TOKEN",
        "NPM_TOKEN",
        "RALPH_STORE_URL",
        "DATABASE_URL",
        "PGPASSWORD",
        "AWS_SECRET_ACCESS_KEY",
        "MY_SERVICE_PASSWORD",
        "SSH_AUTH_SOCK",
        "XDG_RUNTIME_DIR",
        "UPSTREAM",
    ],
)
def test_a_variable_no_list_names_reaches_neither_agent_nor_tests(name):
    environ = {name: "https://user:pw@host.example/x", "PATH": "/bin"}
    assert agent_environment(environ) == {"PATH": "/bin"}
    assert environment_for_tests(environ) == {"PATH": "/bin"}


def test_what_a_program_needs_to_run_passes_to_both():
    needed = {"PATH", "HOME", "LANG", "LC_ALL", "TERM"}
    assert set(environment_for_tests(PERSON)) == needed
    assert needed <= set(agent_environment(PERSON))


def test_the_agent_gets_its_key_and_cli_settings_the_tests_do_not():
    agent = agent_environment(PERSON)
    assert agent["ANTHROPIC_API_KEY"] == "sk-ant-key"
    assert agent["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert agent["CLAUDE_CONFIG_DIR"] == "/home/me/.claude"
    assert "ANTHROPIC_API_KEY" not in environment_for_tests(PERSON)


def test_a_secret_among_an_agent_clis_settings_stays_out():
    environ = {"OPENAI_ORG_TOKEN": "t0k3n-value", "OPENAI_BASE_URL": "https://u:pw@api.example"}
    assert agent_environment(environ) == {}


def test_sandbox_env_passes_the_variables_it_names_to_both():
    assert environment_for_tests(PERSON, ["JAVA_HOME"])["JAVA_HOME"] == "/opt/java"
    assert agent_environment(PERSON, ["JAVA_HOME"])["JAVA_HOME"] == "/opt/java"
    assert "JAVA_HOME" not in agent_environment(PERSON)


def test_an_agents_python_writes_its_bytecode_in_ralphs_cache_not_the_worktree():
    assert agent_environment(PERSON)["PYTHONPYCACHEPREFIX"] == "/home/me/.cache/ralph/pycache"
    elsewhere = {**PERSON, "XDG_CACHE_HOME": "/var/cache/me"}
    assert agent_environment(elsewhere)["PYTHONPYCACHEPREFIX"] == "/var/cache/me/ralph/pycache"
    # The person's own choice is not passed on, and the tests get none (what they leave
    # is removed after them).
    chosen = {**PERSON, "PYTHONPYCACHEPREFIX": "/home/me/project/.pyc"}
    assert agent_environment(chosen)["PYTHONPYCACHEPREFIX"] == "/home/me/.cache/ralph/pycache"
    assert "PYTHONPYCACHEPREFIX" not in environment_for_tests(PERSON)
