"""The ``[merge]`` table of ralph.toml: how a merge whose pull request is not ready yet
(checks running, a review missing) waits. It holds no worker while it waits and looks
again after ``wait_seconds``, twice as long each time, at most ``max_wait_seconds``.

    [merge]
    wait_seconds = 15          # RALPH_MERGE_WAIT_SECONDS
    max_wait_seconds = 300     # RALPH_MERGE_MAX_WAIT_SECONDS
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ralph.config._github import env_value
from ralph.config._numbers import MIN_WAIT_SECONDS, setting_number
from ralph.config._tables import section_table
from ralph.errors import ConfigError

__all__ = ["MAX_WAIT_LIMIT_SECONDS", "MERGE_ENV", "MergeWaitSettings", "parse_merge_settings"]

MERGE_ENV = {
    "wait_seconds": "RALPH_MERGE_WAIT_SECONDS",
    "max_wait_seconds": "RALPH_MERGE_MAX_WAIT_SECONDS",
}
#: A wait longer than a day between two looks is a typo, not a policy.
MAX_WAIT_LIMIT_SECONDS = 86400.0


@dataclass(frozen=True, kw_only=True)
class MergeWaitSettings:
    """How a merge that is not ready yet waits (the ``[merge]`` table)."""

    #: The first pause before a waiting merge looks again.
    wait_seconds: float = 15.0
    #: The longest pause: the backoff doubles up to it.
    max_wait_seconds: float = 300.0


def parse_merge_settings(data: Any, source: str, env: Mapping[str, str]) -> MergeWaitSettings:
    table = section_table(data, source, "merge", MERGE_ENV)
    settings = MergeWaitSettings()
    where = {}
    for key, variable in MERGE_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        if raw is None:
            continue
        where[key] = variable if from_env else f"{source}: merge.{key}"
        seconds = setting_number(
            raw, where[key], minimum=MIN_WAIT_SECONDS, maximum=MAX_WAIT_LIMIT_SECONDS
        )
        settings = replace(settings, **{key: seconds})
    if settings.max_wait_seconds < settings.wait_seconds:
        named = where.get("max_wait_seconds") or where["wait_seconds"]
        raise ConfigError(
            f"{named}: max_wait_seconds ({settings.max_wait_seconds:g}) is shorter than "
            f"wait_seconds ({settings.wait_seconds:g}); the longest wait must be at least the first"
        )
    return settings
