"""The original's date math (``date-math.ts``): ``@today``, ``@now`` and offsets such as
``@today-7d`` or ``@now-24h``, or an ISO date or time. Pure: the caller gives ``now``."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

from ralph.errors import InvalidInput

__all__ = ["parse_date_math"]

_EXPRESSION = re.compile(r"^@(today|now)(?:([+-])(\d{1,6})([hdwm]))?$", re.IGNORECASE)
_SECONDS = {"h": 3600, "d": 86400, "w": 7 * 86400}
#: The same bounds as datetime's: past them an offset is a typo.
_MOST_MONTHS = 12 * 9000


def _invalid(text: str) -> InvalidInput:
    return InvalidInput(
        f'Invalid date expression: "{text}". Use @today-7d, @now-24h, or an ISO date (YYYY-MM-DD)'
    )


def _add_months(moment: datetime, months: int) -> datetime:
    """Calendar months, with JavaScript's ``setUTCMonth`` overflow (Jan 31 + 1 month is
    Mar 3 or 2), as the original computed them."""
    total = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(total, 12)
    first = moment.replace(year=year, month=month + 1, day=1)
    days = calendar.monthrange(year, month + 1)[1]
    overflow = moment.day - 1
    if moment.day > days:
        return first + timedelta(days=overflow)
    return first.replace(day=moment.day)


def parse_date_math(text: str, now: datetime) -> datetime:
    """The moment ``text`` names (UTC). ``@today`` is 00:00 UTC of ``now``'s date;
    ``m`` counts calendar months; an ISO date is UTC midnight."""
    value = text.strip()
    found = _EXPRESSION.match(value)
    if found is not None:
        anchor, sign, amount, unit = found.groups()
        base = now.astimezone(UTC)
        if anchor.lower() == "today":
            base = base.replace(hour=0, minute=0, second=0, microsecond=0)
        if sign is None:
            return base
        count = int(amount) * (-1 if sign == "-" else 1)
        try:
            if unit.lower() == "m":
                if abs(count) > _MOST_MONTHS:
                    raise _invalid(text)
                return _add_months(base, count)
            return base + timedelta(seconds=count * _SECONDS[unit.lower()])
        except (OverflowError, ValueError):
            raise _invalid(text) from None
    # ASCII digits only: fromisoformat takes other scripts' digits too.
    if not value.isascii() or not value[:4].isdigit():
        raise _invalid(text)
    try:
        moment = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise _invalid(text) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
