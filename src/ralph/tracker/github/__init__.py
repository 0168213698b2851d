"""The GitHub tracker: issues of one repository on a Projects V2 board, through
``ralph.github``'s client; and setting up or checking that board."""

from __future__ import annotations

from ralph.tracker._model import Check
from ralph.tracker.github._board import BoardSetup, check_board, set_up_board
from ralph.tracker.github._tracker import NO_STATUS_UPDATES, GitHubTracker

__all__ = [
    "NO_STATUS_UPDATES",
    "BoardSetup",
    "Check",
    "GitHubTracker",
    "check_board",
    "set_up_board",
]
