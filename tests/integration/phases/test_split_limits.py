"""A split the tracker cannot hold (GitHub: 100 sub-issues per parent, eight levels) is
refused before any child is made, in one line, and left to a person."""

from __future__ import annotations

from ralph.phases import PhaseStatus
from ralph.workflow import WorkflowState

from .conftest import Sample


def test_a_split_past_the_sub_issue_cap_escalates_and_makes_no_child(sample: Sample):
    epic = sample.epic()
    sample.tracker.max_sub_issues = 2  # the scripted analyst proposes three
    outcome = sample.runner().run("split", epic)
    assert outcome.status is PhaseStatus.ESCALATED, outcome.lines
    assert sample.tracker.get_issue(epic).sub_issues == ()
    assert sample.state(epic) is WorkflowState.HUMAN_NEEDED
    assert "allows at most 2 per parent" in outcome.error
    assert "\n" not in outcome.error


def test_a_split_deeper_than_the_tracker_allows_escalates(sample: Sample):
    epic = sample.epic()
    sample.tracker.max_levels = 1
    outcome = sample.runner().run("split", epic)
    assert outcome.status is PhaseStatus.ESCALATED, outcome.lines
    assert sample.tracker.get_issue(epic).sub_issues == ()
    assert "levels" in outcome.error
