"""The ``[notify]`` table of ralph.toml: how Ralph tells a person that they are needed
(an escalation, a plan to approve, a review requested), that a run ended or that a
budget stopped work.

    [notify]
    command = ""               # RALPH_NOTIFY_COMMAND: the event as JSON on stdin, "$1" its summary
    webhook = ""               # RALPH_NOTIFY_WEBHOOK: a JSON POST (Slack-compatible)
    timeout_seconds = 5        # RALPH_NOTIFY_TIMEOUT_SECONDS: per call
    retries = 3                # RALPH_NOTIFY_RETRIES: the webhook's retries
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ralph.config._github import env_value
from ralph.config._numbers import MIN_SECONDS, setting_number
from ralph.config._tables import section_table
from ralph.errors import ConfigError

__all__ = [
    "MAX_NOTIFY_RETRIES",
    "MAX_NOTIFY_TIMEOUT_SECONDS",
    "NOTIFY_ENV",
    "NotifySettings",
    "parse_notify_settings",
    "webhook_problem",
]

NOTIFY_ENV = {
    "command": "RALPH_NOTIFY_COMMAND",
    "webhook": "RALPH_NOTIFY_WEBHOOK",
    "timeout_seconds": "RALPH_NOTIFY_TIMEOUT_SECONDS",
    "retries": "RALPH_NOTIFY_RETRIES",
}
#: A notification slower than this is no notification; the pipeline never waits for it.
MAX_NOTIFY_TIMEOUT_SECONDS = 60.0
MAX_NOTIFY_RETRIES = 10


@dataclass(frozen=True, kw_only=True)
class NotifySettings:
    #: A shell command: the event as JSON on standard input, its one-line summary as
    #: ``"$1"``. Empty: none.
    command: str = ""
    #: An http(s) URL the event is POSTed to as JSON with a ``text`` field. Empty: none.
    webhook: str = ""
    #: Longest one call (the command, one POST) may take.
    timeout_seconds: float = 5.0
    #: POSTs again after a failure, with a growing pause between them.
    retries: int = 3

    @property
    def configured(self) -> bool:
        return bool(self.command.strip() or self.webhook.strip())


def webhook_problem(url: str) -> str:
    """What is wrong with ``url`` as a webhook ("" when nothing is)."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"is not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must start with https:// or http://"
    if not parts.hostname:
        return "names no host"
    if any(c.isspace() for c in url):
        return "contains white space"
    return ""


def parse_notify_settings(data: Any, source: str, env: Mapping[str, str]) -> NotifySettings:
    table = section_table(data, source, "notify", NOTIFY_ENV)
    settings = NotifySettings()
    for key, variable in NOTIFY_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        where = variable if from_env else f"{source}: notify.{key}"
        if raw is None:
            continue
        if key == "timeout_seconds":
            seconds = setting_number(
                raw, where, minimum=MIN_SECONDS, maximum=MAX_NOTIFY_TIMEOUT_SECONDS
            )
            settings = replace(settings, timeout_seconds=seconds)
        elif key == "retries":
            retries = setting_number(raw, where, whole=True, maximum=MAX_NOTIFY_RETRIES)
            settings = replace(settings, retries=int(retries))
        elif not isinstance(raw, str):
            expected = "a shell command" if key == "command" else "an https:// URL"
            raise ConfigError(f"{where}: {raw!r} is not valid; expected {expected}")
        elif key == "webhook" and raw.strip() and (problem := webhook_problem(raw.strip())):
            # The URL may hold a secret (Slack's do): named by its place, not repeated.
            raise ConfigError(f"{where}: the webhook URL {problem}; set an https:// URL")
        else:
            settings = replace(settings, **{key: raw.strip()})  # type: ignore[arg-type]
    return settings
