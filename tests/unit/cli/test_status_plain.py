"""``ralph status`` on a pipe: the dashboard the terminal's tables show, as plain lines
(a state and its count, its issues indented, then the projects, health and archive),
titles whole and as written but without control characters or known secrets."""

from __future__ import annotations

import io

import pytest

from ralph._secrets import register_secret
from ralph.cli._console import Console
from ralph.cli._status_plain import plain_dashboard, plain_lines
from ralph.cli._status_render import render_dashboard
from ralph.dashboard import (
    Dashboard,
    HealthWarning,
    IssueSnapshot,
    PhaseSnapshot,
    ProjectBreakdown,
    Severity,
    WarningType,
)

pytestmark = pytest.mark.timeout(30)

SECRET = "ghp_PLANTEDSTATUS00001"
EVIL = "\x1b[2J\x1b]0;pwned\x07"


def issue(number: int, title: str, estimate: str | None = "S", locked: bool = False):
    return IssueSnapshot(
        number=number,
        title=title,
        priority=None,
        estimate=estimate,
        assignees=(),
        age_hours=1.0,
        is_locked=locked,
        blocked_by=(),
    )


def dashboard(*, projects: tuple[ProjectBreakdown, ...] = ()) -> Dashboard:
    backlog = PhaseSnapshot(
        state="Backlog",
        issues=(
            issue(1, "Add `divide(a, b)`"),
            issue(2, f"Old{EVIL} token {SECRET}", estimate=None),
            issue(3, "Third"),
        ),
    )
    working = PhaseSnapshot(state="In Progress", issues=(issue(4, "Being built", locked=True),))
    return Dashboard(
        generated_at=0.0,
        total_issues=4,
        phases=(backlog, PhaseSnapshot(state="Research Needed", issues=()), working),
        warnings=(
            HealthWarning(WarningType.PIPELINE_GAP, Severity.INFO, "Research Needed is empty"),
            HealthWarning(WarningType.NEEDS_A_PERSON, Severity.WARNING, "#2 needs a person:\nwhy"),
        ),
        archive_eligible=((9, "Old", "Done", 20),),
        recently_completed=2,
        archive_threshold_days=14.0,
        projects=projects,
    )


def test_each_state_has_its_count_then_its_issues_and_the_health_and_archive_follow():
    register_secret(SECRET)
    assert plain_dashboard(dashboard(), issues_per_phase=2).splitlines() == [
        "Pipeline — 4 issues",
        "Backlog: 3",
        "  #1 S Add `divide(a, b)`",  # as written, as the piped issue list shows it
        "  #2 Old[2J]0;pwned token ***",
        "  +1 more",
        "Research Needed: 0",
        "In Progress: 1",
        "  #4 S 🔒 Being built",
        "Health: needs attention",
        "  [warning] #2 needs a person: why",  # one line; the pipeline gap is not shown
        "2 finished recently; 1 ready to archive (ralph hygiene --archive)",
    ]


def test_the_per_project_breakdown_comes_before_the_health():
    quiet = ProjectBreakdown(number=5, title="Ops", phases=(), warnings=())
    busy = ProjectBreakdown(
        number=3,
        title="Shop",
        phases=(PhaseSnapshot(state="In Progress", issues=(issue(4, "Being built"),)),),
        warnings=(HealthWarning(WarningType.STUCK_ISSUE, Severity.WARNING, "#4 stuck"),),
    )
    lines = plain_dashboard(dashboard(projects=(busy, quiet)), issues_per_phase=10).splitlines()
    at = lines.index("Per project")
    assert lines[at : at + 4] == [
        "Per project",
        "  #3 Shop: 1 active; In Progress 1; 1 warning",
        "  #5 Ops: 0 active; no items",
        "Health: needs attention",
    ]


def test_what_the_pipe_shows_of_an_issue_the_terminals_table_shows_too():
    """The same dashboard, word for word, where the table has room for the titles (its
    code spans styled, without their backticks)."""
    out = io.StringIO()
    Console(file=out, width=200).print(render_dashboard(dashboard(), 2))
    table = " ".join(out.getvalue().split())  # the warning's line break, a space
    for line in plain_dashboard(dashboard(), 2).splitlines():
        words = line.strip().replace("`", "")
        if ": " in words and not words.startswith(("#", "[")):
            state, count = words.split(": ")
            assert state in table
            assert count == "0" or count in table
        else:
            assert words in table, words


def test_held_and_waiting_lines_are_one_line_each_without_control_characters():
    assert plain_lines([f"#2 held:\nby {EVIL}"], "○ ") == "○ #2 held: by [2J]0;pwned\n"


def test_a_secret_split_by_a_control_character_is_masked_once_it_is_whole():
    register_secret(SECRET)
    split = f"{SECRET[:8]}\x07{SECRET[8:]}"
    assert plain_lines([f"token {split}"], "") == "token ***\n"
