"""The [hooks] table: commands per hook and their timeout, RALPH_HOOK_* overrides, and
mistakes as one line."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, load_config
from ralph.errors import ConfigError


def config_with(tmp_path, hooks: str, env: dict[str, str] | None = None):
    (tmp_path / CONFIG_FILE).write_text(f'repo = "shop"\n[hooks]\n{hooks}\n')
    return load_config(tmp_path, env=env or {})


def test_hooks_are_unset_by_default_with_a_ten_minute_timeout(tmp_path):
    hooks = config_with(tmp_path, "").hooks
    assert [hooks.command(n) for n in ("after_create", "before_run")] == ["", ""]
    assert hooks.timeout_seconds == 600


def test_the_file_sets_hooks_and_the_environment_overrides_them(tmp_path):
    hooks = config_with(
        tmp_path,
        'after_create = "uv sync"\nbefore_remove = "make clean"\ntimeout_seconds = 30',
        env={"RALPH_HOOK_AFTER_CREATE": "npm ci", "RALPH_HOOK_TIMEOUT_SECONDS": "5"},
    ).hooks
    assert (hooks.after_create, hooks.before_remove) == ("npm ci", "make clean")
    assert hooks.timeout_seconds == 5


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ('after_clone = "x"', "unknown setting hooks.after_clone; known: after_create"),
        ("after_create = 3", "hooks.after_create: 3 is not valid; expected a shell command"),
        ("timeout_seconds = 0", "hooks.timeout_seconds: 0 is not valid; expected a finite"),
    ],
)
def test_mistakes_are_one_line_naming_the_setting(tmp_path, hooks, message):
    with pytest.raises(ConfigError, match=message):
        config_with(tmp_path, hooks)
