"""How Ralph's log records are written: one line each, with the structured fields the
code attached (``extra={...}``) and a stable ``action`` (the message before arguments
are filled in) that a log search can key on; ``key=value`` for people, JSON lines for
machines. Everything written passes the secret redaction."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from ralph._secrets import redact
from ralph._text import printable

__all__ = ["LOG_FORMATS", "StructuredFormatter", "configure_logging"]

LOG_FORMATS = ("text", "json")
#: Attributes every LogRecord has; anything else came from ``extra``.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    return {key: value for key, value in vars(record).items() if key not in _STANDARD}


def _text(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if not text or any(c in text for c in ' "=\n') else text


class StructuredFormatter(logging.Formatter):
    def __init__(self, style: str = "text") -> None:
        super().__init__()
        self.style = style

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        entry: dict[str, Any] = {
            "time": when,
            "level": record.levelname.lower(),
            "logger": record.name,
            "action": str(record.msg),
            "message": record.getMessage(),
            **_fields(record),
        }
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        if self.style == "json":
            return redact(json.dumps(entry, default=str))
        head = f"{when} {record.levelname} {record.name}: {entry.pop('message')}"
        for key in ("time", "level", "logger", "action"):
            entry.pop(key)
        trace = entry.pop("traceback", None)
        line = " ".join([head, *(f"{key}={_text(value)}" for key, value in entry.items())])
        # A person reads these on a terminal: no ESC from a title or an agent's error.
        return printable(redact(line if trace is None else f"{line}\n{trace}"))


def configure_logging(level: int, style: str = "text") -> None:
    """Ralph's one logging setup: records at ``level`` and above to standard error. A
    host that configured logging already (a test runner, an application embedding
    Ralph) keeps its own handlers."""
    handler = logging.StreamHandler()
    handler.setFormatter(StructuredFormatter(style))
    logging.basicConfig(level=level, handlers=[handler])
