"""Redaction: every secret value Ralph knows is removed from a text, in the forms it
travels in, and nothing else is touched."""

from __future__ import annotations

import logging
import sys
import time

import pytest

from ralph import _secrets as secrets
from ralph._logs import StructuredFormatter
from ralph._secrets import (
    Redactor,
    redact,
    register_secret,
    register_url,
    secret_name,
    secret_values,
    url_passwords,
)

ENV = {
    "RALPH_GH_TOKEN": "ghp_SECRETTOKEN123",
    "ANTHROPIC_API_KEY": "sk-ant-KEYKEYKEY",
    "PGPASSWORD": "pgpw-secret",
    "NPM_CONFIG__AUTH": "bnBtOnNlY3JldA==",
    "RALPH_STORE_URL": "postgresql://ralph:st%40re-pw@db/ralph",
    "RALPH_GH_API_URL": "https://user:URLPASS99@ghe.example/api",
    "HOME": "/root",
    "SHORT_TOKEN": "abc",
}


def test_every_secret_in_the_environment_is_removed_from_a_text():
    redact = Redactor.from_environment(ENV)
    text = (
        "diag: ghp_SECRETTOKEN123 key sk-ant-KEYKEYKEY pg pgpw-secret npm bnBtOnNlY3JldA== "
        "store st%40re-pw decoded st@re-pw api URLPASS99 home /root"
    )
    assert redact(text) == (
        "diag: *** key *** pg *** npm *** store *** decoded *** api *** home /root"
    )


def test_short_values_and_ordinary_variables_are_left_alone():
    redact = Redactor.from_environment(ENV)
    assert redact("abc and /root") == "abc and /root"


@pytest.mark.parametrize("hidden", ["\x1b", "\x07", "\x7f", "\x9b", "\u200b", "\u202e", "\xad"])
def test_a_secret_split_by_a_character_no_one_sees_is_removed(hidden):
    redact = Redactor.from_environment(ENV)
    split = f"ghp_SECRET{hidden}TOKEN{hidden}123"
    # A terminal or a page shows it whole: it goes, and the hidden characters with it.
    assert redact(f"token {split}\nnext") == "token ***\nnext"


def test_hidden_characters_stay_where_they_hide_no_secret():
    redact = Redactor.from_environment(ENV)
    text = "ghp_SECRETTOKEN123 then \x1b[31mred\u200b"
    assert redact(text) == "*** then \x1b[31mred\u200b"


def test_names_that_hold_secrets():
    assert all(
        secret_name(name)
        for name in ("RALPH_GH_TOKEN", "MY_SERVICE_AUTH", "NPM_CONFIG__AUTH", "PGPASSWORD")
    )
    assert not any(secret_name(name) for name in ("HOME", "PATH", "AUTHOR", "RALPH_AGENT"))


def test_passwords_are_found_in_every_way_a_url_writes_them():
    assert url_passwords("postgresql://u:pw123@h/db") == {"pw123"}
    assert url_passwords("postgresql:///x?password=TOPSECRET&host=h") == {"TOPSECRET"}
    assert url_passwords("host=h password='a b c' dbname=x") == {"a b c"}


def test_a_secret_added_later_is_redacted_too():
    redact = Redactor()
    assert redact("token abcdef123") == "token abcdef123"
    redact.add("abcdef123")
    assert redact("token abcdef123") == "token ***"


def test_log_output_is_redacted_tracebacks_included(monkeypatch):
    monkeypatch.setenv("RALPH_GH_TOKEN", "ghp_SECRETTOKEN123")
    monkeypatch.setattr(secrets, "_default", None)  # read the environment again
    try:
        raise RuntimeError("failed with ghp_SECRETTOKEN123")
    except RuntimeError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "token %s", ("ghp_SECRETTOKEN123",), sys.exc_info()
        )
    out = StructuredFormatter().format(record)
    assert "token ***" in out
    assert "RuntimeError: failed with ***" in out
    assert "ghp_SECRETTOKEN123" not in out


def test_a_registered_secret_is_redacted_by_the_process(monkeypatch):
    monkeypatch.setattr(secrets, "_default", None)
    register_url("postgresql://u:from-the-file@h/db")
    register_secret("a-value-from-an-option")
    assert redact("could not log in with from-the-file") == "could not log in with ***"
    assert redact("postgresql://u@h/db and a-value-from-an-option") == "postgresql://u@h/db and ***"


WEBHOOK = "https://hooks.example/T000/SLACKPLANTED0013"


def test_a_secret_under_a_name_no_list_knows_is_removed_by_its_look():
    redact = Redactor.from_environment({"SLACK_WEBHOOK_URL": WEBHOOK, "HOME": "/root"})
    assert redact(f"posting to {WEBHOOK} failed") == "posting to *** failed"
    assert redact("POST /T000/SLACKPLANTED0013: 404") == "POST /T000/***: 404"
    assert redact("quoted https%3A%2F%2Fhooks.example%2FT000%2FSLACKPLANTED0013") == "quoted ***"


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        (WEBHOOK, "SLACKPLANTED0013"),
        ("ghp_SECRETTOKEN123", "ghp_SECRETTOKEN123"),
        ("xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl"),
        ("Bearer sk-ant-api03-Zx9fQ2", "sk-ant-api03-Zx9fQ2"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        ("lin_api_a1_b2-c3d4e5f6", "lin_api_a1_b2-c3d4e5f6"),
        ("token=q8ZtR3vLm0PxY7sKd2Wf", "q8ZtR3vLm0PxY7sKd2Wf"),
        ("https://api.example/hook?key=Ab12Cd34Ef56Gh78Ij90", "Ab12Cd34Ef56Gh78Ij90"),
    ],
)
def test_values_that_look_like_secrets(value, secret):
    assert secret_values(value) == {value, secret}


@pytest.mark.parametrize(
    "value",
    [
        "/usr/lib/jvm/java-17-openjdk-amd64/bin:/usr/local/bin:/usr/bin",
        "/home/someone/.cache/pypoetry/virtualenvs/project-Ab3xY9kQ-py3.12",
        "~/projects/ralph",
        "0123456abc",  # an abbreviated commit
        "https://pypi.org/simple",
        "postgresql://127.0.0.1:5432/test",
        "xterm-256color",
        "en_US.UTF-8",
        "ralph-worker-7d9f8c6b5d-x2k4p",
        "12345678901234567890",
        "aaaaaaaa11111111",
        "test_the_board_fragment_is_the_board_alone_for_live_updates",
        "task-scheduler-abcdefghij",
        "",
    ],
)
def test_ordinary_values_do_not_look_like_secrets(value):
    assert secret_values(value) == set()


def test_ordinary_values_of_the_environment_stay_readable():
    environ = {"PATH": "/usr/local/bin:/usr/bin", "GIT_COMMIT": "0" * 8 + "abcdef12" * 4}
    redact = Redactor.from_environment(environ)
    assert redact("ran /usr/local/bin/git at 00000000abcdef12") == (
        "ran /usr/local/bin/git at 00000000abcdef12"
    )


#: Generated keys no prefix announces, as the review planted them under neutral names.
SIGNING = "5f4dcc3b5aa765d61d8327deb882cf99aa00bb11"
DATADOG = "0123456789abcdef0123456789abcdef"
HEROKU = "550e8400-e29b-41d4-a716-446655440000"
DEPLOY = "DEPLOYPLANTED-a8f3-k2m9-x1q7"


@pytest.mark.parametrize("value", [SIGNING, DATADOG, HEROKU, DEPLOY])
def test_a_generated_key_under_a_neutral_name_is_removed(value):
    redact = Redactor.from_environment({"WEBHOOK_SIGNING": value, "HOME": "/root"})
    assert redact(f"SIGNING={value} failed") == "SIGNING=*** failed"


def test_a_key_inside_a_url_of_the_environment_is_removed():
    url = f"https://hooks.example/webhook/{HEROKU}/IncomingWebhook"
    assert HEROKU in secret_values(url)


def test_a_commit_the_environment_names_as_one_stays_readable_in_ralphs_output():
    # GITHUB_SHA and its kind are the commits Ralph's own texts show, never keys.
    redact = Redactor.from_environment({"GITHUB_SHA": SIGNING, "CI_COMMIT_SHA": DATADOG})
    assert redact(f"merged {SIGNING} and {DATADOG}") == f"merged {SIGNING} and {DATADOG}"


def test_only_the_environments_own_hex_is_removed_not_every_hash_in_a_text():
    redact = Redactor.from_environment({"WEBHOOK_SIGNING": SIGNING})
    commit = "0123456789abcdef0123456789abcdef01234567"
    assert redact(f"{commit} {SIGNING}") == f"{commit} ***"


def _cpu_seconds(work, value: str, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work(value)
        best = min(best, time.process_time() - started)
    return max(best, 1e-4)


@pytest.mark.parametrize("value", ["A", "a1", "password='x ", "a://"])
def test_reading_a_long_value_of_the_environment_costs_work_in_proportion_to_its_length(value):
    # Ten times the text, about ten times the work: a quadratic scrub costs a hundred
    # times (5 s for a 30 KB value, on every command).
    def read(text: str) -> None:
        Redactor.from_environment({"BLOB": text})
        url_passwords(text)

    small = _cpu_seconds(read, value * (10_000 // len(value)), repeat=3)
    large = _cpu_seconds(read, value * (100_000 // len(value)))
    assert large / small < 30, f"10 KB: {small:.4f}s, 100 KB: {large:.4f}s"
