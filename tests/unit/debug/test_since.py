"""``--since``: spans back from now and moments, bad ones refused in one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ralph.debug import parse_since
from ralph.errors import InvalidInput

NOW = datetime(2026, 2, 20, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("30m", timedelta(minutes=30)),
        ("24h", timedelta(hours=24)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
    ],
)
def test_a_span_goes_back_from_now(text, back):
    assert parse_since(text, NOW) == NOW - back


def test_a_date_or_time_is_utc_unless_it_names_a_zone():
    assert parse_since("2026-02-19", NOW) == datetime(2026, 2, 19, tzinfo=UTC)
    assert parse_since("2026-02-19T10:00:00+02:00", NOW) == datetime(2026, 2, 19, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "0d",
        "-1d",
        "7",
        "7x",
        "1.5d",
        "nan",
        "99999d",
        "2099-01-01",
        "0001-01-01",
        "١d",
        "٢٠٢٦-01-01",
        "a\x00b",
        "2026-13-01",
        "yesterday",
    ],
)
def test_a_bad_value_is_one_line_naming_the_option(text):
    with pytest.raises(InvalidInput) as refused:
        parse_since(text, NOW)
    assert str(refused.value).startswith("--since ")
    assert "\n" not in str(refused.value)
