"""The Linear tracker's parts: Ralph's values as a Linear team holds them
(``_mapping``), setting up and checking the team (``_team``), and the team's issues read
and written safely through ``ralph.linear``'s client (``_writes``), and the
``LinearTracker`` over them."""

from __future__ import annotations

from ralph.tracker.linear._mapping import (
    ESTIMATE_POINTS,
    PRIORITY_NUMBERS,
    STATE_TYPES,
    comment_from,
    issue_from,
)
from ralph.tracker.linear._team import LinearTeam, TeamSetup, check_team, read_team, set_up_team
from ralph.tracker.linear._tracker import NO_STATUS_UPDATES, LinearTracker

__all__ = [
    "ESTIMATE_POINTS",
    "NO_STATUS_UPDATES",
    "PRIORITY_NUMBERS",
    "STATE_TYPES",
    "LinearTeam",
    "LinearTracker",
    "TeamSetup",
    "check_team",
    "comment_from",
    "issue_from",
    "read_team",
    "set_up_team",
]
