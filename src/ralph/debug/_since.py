"""``--since``: a window back from now (``30m``, ``24h``, ``7d``, ``2w``) or a moment
(``2026-02-20``, ``2026-02-20T12:00:00Z``; UTC unless it names its zone)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from ralph.errors import InvalidInput

__all__ = ["MAX_SINCE_DAYS", "parse_since"]

#: Ten years: more is a typo, and timedelta itself ends not far beyond.
MAX_SINCE_DAYS = 3650
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SPAN = re.compile(r"([0-9]{1,7})([mhdw])")
_EXAMPLES = "give a span such as 30m, 24h, 7d or 2w, or a date or time such as 2026-02-20"


def parse_since(text: str, now: datetime) -> datetime:
    """The moment ``text`` names, not after ``now`` (an aware UTC datetime)."""
    value = text.strip()
    span = _SPAN.fullmatch(value)
    if span is not None:
        seconds = int(span.group(1)) * _UNITS[span.group(2)]
        if seconds == 0 or seconds > MAX_SINCE_DAYS * 86400:
            raise InvalidInput(
                f"--since {text!r} is not valid; give a span above 0 and at most "
                f"{MAX_SINCE_DAYS}d ({_EXAMPLES})"
            )
        return now - timedelta(seconds=seconds)
    # ASCII digits only: fromisoformat would take other scripts' digits too.
    if not value.isascii() or not value[:4].isdigit():
        raise InvalidInput(f"--since {text!r} is not valid; {_EXAMPLES}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"--since {text!r} is not valid; {_EXAMPLES}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment > now:
        raise InvalidInput(f"--since {text!r} is in the future; {_EXAMPLES}")
    if now - moment > timedelta(days=MAX_SINCE_DAYS):
        raise InvalidInput(f"--since {text!r} is more than {MAX_SINCE_DAYS} days ago")
    return moment
