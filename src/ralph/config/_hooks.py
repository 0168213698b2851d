"""The ``[hooks]`` table of ralph.toml: shell commands Ralph runs in an implementation
worktree, confined like the test command, each within ``timeout_seconds``.

    [hooks]
    after_create = "uv sync"     # RALPH_HOOK_AFTER_CREATE: once per worktree
    before_run = ""              # RALPH_HOOK_BEFORE_RUN: before each agent run in it
    after_run = ""               # RALPH_HOOK_AFTER_RUN: after each agent run in it
    before_remove = ""           # RALPH_HOOK_BEFORE_REMOVE: before Ralph removes it
    timeout_seconds = 600        # RALPH_HOOK_TIMEOUT_SECONDS
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ralph.config._github import env_value
from ralph.config._numbers import MAX_SECONDS, MIN_SECONDS, setting_number
from ralph.config._tables import section_table
from ralph.errors import ConfigError

__all__ = ["HOOK_ENV", "HOOK_NAMES", "HookSettings", "parse_hook_settings"]

#: The hooks, in the order a worktree meets them.
HOOK_NAMES = ("after_create", "before_run", "after_run", "before_remove")
HOOK_ENV = {
    **{name: f"RALPH_HOOK_{name.upper()}" for name in HOOK_NAMES},
    "timeout_seconds": "RALPH_HOOK_TIMEOUT_SECONDS",
}


@dataclass(frozen=True, kw_only=True)
class HookSettings:
    after_create: str = ""
    before_run: str = ""
    after_run: str = ""
    before_remove: str = ""
    #: Longest a hook may run before its whole process group is killed.
    timeout_seconds: float = 600.0

    def command(self, hook: str) -> str:
        """The hook's command ("" when it is not set)."""
        value = getattr(self, hook)
        assert isinstance(value, str)
        return value.strip()


def parse_hook_settings(data: Any, source: str, env: Mapping[str, str]) -> HookSettings:
    table = section_table(data, source, "hooks", HOOK_ENV)
    settings = HookSettings()
    for key, variable in HOOK_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        where = variable if from_env else f"{source}: hooks.{key}"
        if raw is None:
            continue
        if key == "timeout_seconds":
            seconds = setting_number(raw, where, minimum=MIN_SECONDS, maximum=MAX_SECONDS)
            settings = replace(settings, timeout_seconds=seconds)
        elif not isinstance(raw, str):
            raise ConfigError(f"{where}: {raw!r} is not valid; expected a shell command")
        else:
            settings = replace(settings, **{key: raw})  # type: ignore[arg-type]
    return settings
