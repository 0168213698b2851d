"""The end of a team session says how far its roster grew with the queues, and nothing
when it kept the crew it started with."""

from __future__ import annotations

import pytest

from ralph.cli._orchestrate import roster_line
from ralph.orchestrate import Ending, SessionResult
from ralph.orchestrate._roster import RosterLine

pytestmark = pytest.mark.timeout(10)


def test_the_roles_that_grew_are_named_with_their_start_and_most():
    result = SessionResult(
        None,
        Ending.FINISHED,
        roster=(
            RosterLine("analyst", 4, 4, 4),
            RosterLine("validator", 1, 6, 1),
            RosterLine("integrator", 1, 3, 2),
        ),
    )
    assert roster_line(result) == (
        "Roster grew with the queues: validators 1 -> 6, integrators 1 -> 3 (most at once)."
    )


def test_a_roster_that_never_grew_says_nothing():
    assert roster_line(SessionResult(None, Ending.FINISHED)) == ""
    kept = SessionResult(None, Ending.FINISHED, roster=(RosterLine("builder", 2, 2, 2),))
    assert roster_line(kept) == ""
