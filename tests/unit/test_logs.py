"""Log lines keep the fields the code attached, name a stable action, come as key=value
or JSON lines, and never carry a secret."""

from __future__ import annotations

import json
import logging

from ralph._logs import StructuredFormatter
from ralph._secrets import register_secret


def _record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord(
        "ralph.phases._runner", logging.WARNING, __file__, 1, message, args, None
    )
    record.__dict__.update(extra)
    return record


def test_a_text_line_shows_the_message_and_every_structured_field() -> None:
    line = StructuredFormatter("text").format(
        _record("agent finished", phase="research", status="ok", cost=0.25)
    )
    assert " WARNING ralph.phases._runner: agent finished " in line
    assert line.endswith("phase=research status=ok cost=0.25")


def test_a_field_with_spaces_is_quoted_so_the_line_still_parses() -> None:
    line = StructuredFormatter("text").format(_record("claude run broke", error="exit 1: no key"))
    assert line.endswith('error="exit 1: no key"')


def test_a_json_line_carries_the_action_before_arguments_are_filled_in() -> None:
    entry = json.loads(StructuredFormatter("json").format(_record("task %s failed", 7, task=7)))
    assert entry["action"] == "task %s failed"
    assert entry["message"] == "task 7 failed"
    assert entry["task"] == 7
    assert entry["level"] == "warning"
    assert entry["logger"] == "ralph.phases._runner"


def test_no_secret_reaches_a_log_line_in_either_format() -> None:
    register_secret("ghp_planted0000000000000000000000000000")
    for style in ("text", "json"):
        line = StructuredFormatter(style).format(
            _record("push failed", url="https://x:ghp_planted0000000000000000000000000000@h/r")
        )
        assert "ghp_planted" not in line
