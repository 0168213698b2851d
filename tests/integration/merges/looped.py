"""The merge scenario's ready changes merged by ``ralph loop`` as a real process (the kill
sweep, ``make bench-merges``): the demo's epic closed first, so the loop has the merges
to do and nothing else; a test command that leaves a marker in the checkout it tests
while it runs, so a test sees a run under way."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ralph.tracker import IssueQuery

from .scenario import Scenario

__all__ = ["MARKER", "loop_args", "marked_tests", "only_the_changes", "under_test"]

MARKER = ".test-running"


def only_the_changes(scenario: Scenario) -> Scenario:
    """``scenario`` with every open issue that is not one of its changes closed (the
    demo's epic, which a loop would carry through the pipeline meanwhile)."""
    tracker = scenario.project.tracker
    changes = {change.issue for change in scenario.changes}
    for issue in tracker.list_issues(IssueQuery()):
        if issue.number not in changes:
            tracker.close_issue(issue.number)
    return scenario


def loop_args(scenario: Scenario) -> tuple[str, ...]:
    """``ralph loop`` with a root at once for every change: all their merges wait on the
    repository's key together."""
    return ("loop", "--max-roots", str(len(scenario.changes)))


def marked_tests(seconds: float) -> str:
    """The demo's tests as the test command, ``seconds`` of sleep first, the marker in the
    checkout meanwhile."""
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    return f"touch {MARKER}; sleep {seconds:g}; {tests}"


def under_test(repo: Path, since: float = 0.0) -> bool:
    """A test run is under way in one of the repository's scratch checkouts (a train's),
    begun at ``since`` or after (its marker's time)."""
    for marker in (repo / ".ralph" / "scratch").glob(f"*/{MARKER}"):
        try:
            if marker.stat().st_mtime >= since:
                return True
        except FileNotFoundError:  # that run just ended
            continue
    return False
