"""The Linear tracker's parts: Ralph's values as a Linear team holds them
(``_mapping``), setting up and checking the team (``_team``), and the team's issues read
and written safely through ``ralph.linear``'s client (``_writes``)."""

from __future__ import annotations

from ralph.tracker.linear._mapping import (
    ESTIMATE_POINTS,
    PRIORITY_NUMBERS,
    STATE_TYPES,
    comment_from,
    issue_from,
)
from ralph.tracker.linear._team import LinearTeam, TeamSetup, check_team, read_team, set_up_team

__all__ = [
    "ESTIMATE_POINTS",
    "PRIORITY_NUMBERS",
    "STATE_TYPES",
    "LinearTeam",
    "TeamSetup",
    "check_team",
    "comment_from",
    "issue_from",
    "read_team",
    "set_up_team",
]
