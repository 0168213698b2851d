"""The dashboard of several boards (``ralph status --projects 3,5``): every board's items,
a breakdown per board and the check that their workloads are in balance."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.dashboard import Dashboard, HealthConfig, build_dashboard
from ralph.errors import InvalidInput
from ralph.tracker import Tracker

__all__ = ["parse_projects", "projects_dashboard"]


def parse_projects(text: str) -> tuple[int, ...]:
    """``3,5`` -> (3, 5): project numbers, each once, in the order given."""
    numbers = []
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or not 0 < int(part) < 2**31:
            raise InvalidInput(
                f"--projects {text!r}: {part!r} is not a project number; "
                "give numbers separated by commas, e.g. 3,5"
            )
        numbers.append(int(part))
    return tuple(dict.fromkeys(numbers))


def projects_dashboard(
    tracker: Tracker,
    projects: Sequence[int],
    *,
    config: HealthConfig | None = None,
    now: float | None = None,
) -> Dashboard:
    """The boards' items together, with a breakdown per board when there are two or
    more. A tracker with one board refuses, saying so."""
    if not tracker.several_boards:
        raise InvalidInput(
            f"the {tracker.kind} tracker has one board, so --projects has nothing to compare; "
            "ralph status shows it (several projects are GitHub's)"
        )
    when = tracker.now() if now is None else now
    return build_dashboard(tracker.project_items(projects), now=when, config=config)
