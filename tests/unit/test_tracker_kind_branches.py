"""Outside ``tracker/`` and ``project/`` nothing asks which tracker it has: a question about
the tracker is one the tracker answers (``Tracker.remote``, ``links_on_host``,
``escalation_handles``, ``scope``, ``settings``, ``check``), so a new backend touches no
caller."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ralph

SRC = Path(ralph.__file__).parent
#: A branch on the tracker's kind: its configured name compared, or an isinstance check
#: against a backend's class.
BRANCH = re.compile(
    r"""(?:tracker|code_host_kind)\s*[!=]=\s*["']|isinstance\([^)]*\b(?:GitHubTracker|LocalTracker)\b"""
)
#: Where the tracker's kind is the subject itself: the backends and the wiring that picks one.
OWN = ("tracker", "project")
#: Branches still there, each with why; this list only ever shrinks.
KNOWN: set[tuple[str, str]] = set()


def _branches() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] in OWN:
            continue
        for line in path.read_text().splitlines():
            if BRANCH.search(line):
                found.add((relative.as_posix(), line.strip()))
    return found


@pytest.mark.timeout(30)
def test_no_code_outside_the_tracker_branches_on_which_tracker_it_has() -> None:
    unexpected = _branches() - KNOWN
    assert not unexpected, (
        "ask the tracker instead (a capability on Tracker with each backend's answer): "
        f"{sorted(unexpected)}"
    )


@pytest.mark.timeout(30)
def test_every_known_branch_is_still_there() -> None:
    # A branch removed leaves its entry behind: drop it so the list only shrinks.
    assert _branches() >= KNOWN, sorted(KNOWN - _branches())


@pytest.mark.timeout(30)
def test_the_pattern_finds_a_branch_on_the_kind() -> None:
    assert BRANCH.search('if config.tracker == "github":')
    assert BRANCH.search("if isinstance(tracker, GitHubTracker):")
    assert not BRANCH.search("if tracker.remote:")
