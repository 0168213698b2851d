"""Values no database column holds get the same one-line refusal on SQLite and on
PostgreSQL: a number beyond 64 bits, text with a NUL byte. Nothing is written."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidInput
from ralph.tracker import IssueQuery, Tracker


@pytest.fixture(params=["local-sqlite", pytest.param("local-postgres", marks=pytest.mark.postgres)])
def tracker_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_number_beyond_64_bits_is_named_not_a_traceback(tracker: Tracker):
    with pytest.raises(InvalidInput, match=r"^18446744073709551616 is too large a number"):
        tracker.get_issue(2**64)


def test_text_with_a_nul_byte_is_refused_and_nothing_is_created(tracker: Tracker):
    with pytest.raises(InvalidInput, match="NUL byte"):
        tracker.create_issue("nul body", body="x\x00y")
    with pytest.raises(InvalidInput, match=r"control characters; it has U\+0000"):
        tracker.create_issue("x\x00y")  # a title: refused before the database sees it
    assert tracker.list_issues(IssueQuery()) == []
