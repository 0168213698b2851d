"""The [notify] table: a command and/or a webhook, their bounds, the RALPH_NOTIFY_*
overrides, and mistakes refused as one line that names the setting."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, NotifySettings, load_config
from ralph.errors import ConfigError

HOOK = "https://hooks.slack.com/services/T000/B000/XXXX"


def notify_with(tmp_path, table: str | None, env: dict[str, str] | None = None) -> NotifySettings:
    section = "" if table is None else f"[notify]\n{table}\n"
    (tmp_path / CONFIG_FILE).write_text(f'repo = "shop"\n{section}')
    return load_config(tmp_path, env=env or {}).notify


def test_nothing_is_sent_by_default_and_a_call_gets_5_seconds_and_3_retries(tmp_path):
    settings = notify_with(tmp_path, None)
    assert settings == NotifySettings(command="", webhook="", timeout_seconds=5, retries=3)
    assert not settings.configured
    assert notify_with(tmp_path, 'command = ""\nwebhook = ""') == settings


def test_the_file_names_the_targets_and_the_environment_overrides_them(tmp_path):
    settings = notify_with(
        tmp_path,
        f'command = "notify-send Ralph"\nwebhook = "{HOOK}"\ntimeout_seconds = 2\nretries = 0',
        env={"RALPH_NOTIFY_COMMAND": "./tell.sh", "RALPH_NOTIFY_RETRIES": "5"},
    )
    assert settings == NotifySettings(
        command="./tell.sh", webhook=HOOK, timeout_seconds=2, retries=5
    )
    assert settings.configured
    from_env = notify_with(tmp_path, None, {"RALPH_NOTIFY_WEBHOOK": "http://127.0.0.1:9/x"})
    assert from_env.webhook == "http://127.0.0.1:9/x"


@pytest.mark.parametrize(
    ("table", "env", "message"),
    [
        (
            "timeout_seconds = 0",
            {},
            "notify.timeout_seconds: 0 is not valid; expected a finite number >= 1",
        ),
        ("timeout_seconds = nan", {}, "notify.timeout_seconds: nan is not valid"),
        ("timeout_seconds = 3600", {}, "notify.timeout_seconds: 3600 is too large; at most 60"),
        ('timeout_seconds = "soon"', {}, "notify.timeout_seconds: 'soon' is not valid"),
        ("retries = 1.5", {}, "notify.retries: 1.5 is not valid; expected a whole number"),
        ("retries = -1", {}, "notify.retries: -1 is not valid"),
        ("retries = 1000", {}, "notify.retries: 1000 is too large; at most 10"),
        ("retries = true", {}, "notify.retries: True is not valid"),
        ("command = 5", {}, "notify.command: 5 is not valid; expected a shell command"),
        ("webhook = 5", {}, "notify.webhook: 5 is not valid; expected an https:// URL"),
        (
            'webhook = "hooks.slack.com/x"',
            {},
            "notify.webhook: the webhook URL must start with https://",
        ),
        (
            'webhook = "ftp://example.com/x"',
            {},
            "the webhook URL must start with https:// or http://",
        ),
        ('webhook = "https:///path"', {}, "notify.webhook: the webhook URL names no host"),
        ('webhook = "https://a b/x"', {}, "the webhook URL contains white space"),
        ('webhook = "https://[::1/x"', {}, "notify.webhook: the webhook URL is not a URL"),
        ("webhok = 1", {}, "unknown setting notify.webhok; did you mean notify.webhook?"),
        (
            "",
            {"RALPH_NOTIFY_TIMEOUT_SECONDS": "-2"},
            "RALPH_NOTIFY_TIMEOUT_SECONDS: '-2' is not valid",
        ),
        ("", {"RALPH_NOTIFY_RETRIES": "many"}, "RALPH_NOTIFY_RETRIES: 'many' is not valid"),
        ("", {"RALPH_NOTIFY_WEBHOOK": "slack"}, "RALPH_NOTIFY_WEBHOOK: the webhook URL must"),
    ],
)
def test_a_bad_value_is_refused_in_one_line_naming_the_setting(tmp_path, table, env, message):
    with pytest.raises(ConfigError) as refused:
        notify_with(tmp_path, table, env)
    said = str(refused.value)
    assert message in said
    assert "\n" not in said


def test_a_refused_webhook_url_is_not_repeated_as_it_may_hold_a_secret(tmp_path):
    with pytest.raises(ConfigError) as refused:
        notify_with(tmp_path, 'webhook = "hooks.slack.com/services/T0/B0/sEcReTtOkEn42"')
    assert "sEcReTtOkEn42" not in str(refused.value)


def test_notify_must_be_a_table(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('repo = "shop"\nnotify = "yes"\n')
    with pytest.raises(ConfigError, match=r"\[notify\] must be a table"):
        load_config(tmp_path, env={})
