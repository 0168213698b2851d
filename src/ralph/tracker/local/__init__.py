"""The local tracker (issues in Ralph's database beside the task store) and code host
(pull requests as real branch merges in the project's git repository)."""

from __future__ import annotations

from ralph.tracker.local._pulls import LocalCodeHost
from ralph.tracker.local._schema import LOCAL_TRACKER_MIGRATIONS
from ralph.tracker.local._tracker import LocalTracker

__all__ = ["LOCAL_TRACKER_MIGRATIONS", "LocalCodeHost", "LocalTracker"]
