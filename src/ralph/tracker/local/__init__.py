"""The local tracker (issues in Ralph's database beside the task store) and code host
(pull requests as real branch merges in the project's git repository)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.tracker.local._pulls import LocalCodeHost
    from ralph.tracker.local._schema import LOCAL_TRACKER_MIGRATIONS
    from ralph.tracker.local._tracker import LocalTracker
else:
    # Loaded on first use (ralph._lazy): reading issues needs the tracker, not the code
    # host's pull requests, reviews and git merges.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = ["LOCAL_TRACKER_MIGRATIONS", "LocalCodeHost", "LocalTracker"]
