"""The GitHub tracker (issues of one repository on a Projects V2 board) and code host
(its pull requests), through ``ralph.github``'s client; and setting up or checking
that board."""

from __future__ import annotations

from ralph.tracker._model import Check
from ralph.tracker.github._board import (
    BoardSetup,
    check_board,
    check_repository,
    repository_default_branch,
    set_up_board,
)
from ralph.tracker.github._pulls import GitHubCodeHost
from ralph.tracker.github._tracker import NO_STATUS_UPDATES, GitHubTracker

__all__ = [
    "NO_STATUS_UPDATES",
    "BoardSetup",
    "Check",
    "GitHubCodeHost",
    "GitHubTracker",
    "check_board",
    "check_repository",
    "repository_default_branch",
    "set_up_board",
]
