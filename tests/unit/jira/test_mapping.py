"""Ralph's values as a Jira project holds them (pure)."""

from __future__ import annotations

import pytest

from ralph.tracker import CloseReason, IssueStatus
from ralph.tracker.jira import EstimateField, StatusMap, issue_from
from ralph.tracker.jira._mapping import estimate_from, estimate_value, priority_from
from ralph.workflow import Estimate, Priority, WorkflowState

POINTS = EstimateField("customfield_10016", "Story point estimate", number=True)
SIZES = EstimateField("customfield_10020", "T-shirt size", number=False)


def test_states_map_to_statuses_of_the_same_name_unless_the_table_says_otherwise():
    statuses = StatusMap.of({"In Review": "Code Review", "Backlog": "To Do"})
    assert statuses.status(WorkflowState.IN_REVIEW) == "Code Review"
    assert statuses.state("code review") is WorkflowState.IN_REVIEW
    assert statuses.state("To Do") is WorkflowState.BACKLOG
    assert statuses.state("Done") is WorkflowState.DONE
    assert statuses.state("Selected for Development") is None


def test_a_table_naming_no_state_of_ralphs_is_refused():
    with pytest.raises(ValueError, match="Reviewing"):
        StatusMap.of({"Reviewing": "Code Review"})


@pytest.mark.parametrize("estimate", list(Estimate))
def test_estimates_round_trip_as_points_and_as_sizes(estimate):
    assert estimate_from(POINTS, estimate_value(POINTS, estimate)) is estimate
    assert estimate_from(SIZES, estimate_value(SIZES, estimate)) is estimate


def test_points_off_ralphs_scale_read_as_no_estimate():
    assert estimate_value(POINTS, Estimate.L) == 5
    assert estimate_from(POINTS, 4) is None
    assert estimate_from(POINTS, 2.5) is None
    assert estimate_from(None, 3) is None


def test_jiras_default_medium_reads_as_no_priority():
    assert priority_from({"name": "Medium"}) is None
    assert priority_from({"name": "Highest"}) is Priority.P0
    assert priority_from({"name": "Lowest"}) is Priority.P3
    assert priority_from(None) is None


def _node(**fields):
    return {
        "key": "PROJ-7",
        "self": "https://acme.atlassian.net/rest/api/3/issue/10007",
        "fields": fields,
    }


def test_an_issue_reads_its_blocks_links_both_ways_leaving_other_projects_out():
    blocks = {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"}
    issue = issue_from(
        _node(
            summary="Seven",
            status={"name": "In Progress", "statusCategory": {"key": "indeterminate"}},
            issuelinks=[
                {"id": "1", "type": blocks, "outwardIssue": {"key": "PROJ-8"}},
                {"id": "2", "type": blocks, "inwardIssue": {"key": "PROJ-3"}},
                {"id": "3", "type": blocks, "inwardIssue": {"key": "OPS-3"}},
                {"id": "4", "type": {"name": "Relates"}, "outwardIssue": {"key": "PROJ-9"}},
            ],
            parent={"key": "PROJ-1"},
            customfield_10016=3,
        ),
        "PROJ",
        StatusMap.of(),
        POINTS,
        children=[9, 8],
    )
    assert issue.number == 7
    assert (issue.blocking, issue.blocked_by) == ((8,), (3,))
    assert (issue.parent, issue.sub_issues) == (1, (8, 9))
    assert issue.workflow_state is WorkflowState.IN_PROGRESS
    assert issue.estimate is Estimate.M
    assert issue.is_open


@pytest.mark.parametrize(
    ("status", "resolution", "reason"),
    [
        ("Done", "Done", CloseReason.COMPLETED),
        ("Canceled", "Done", CloseReason.NOT_PLANNED),
        ("Canceled", "Duplicate", CloseReason.DUPLICATE),
        ("Done", "Won't Do", CloseReason.NOT_PLANNED),
    ],
)
def test_an_issue_in_the_done_category_is_closed_for_its_resolution(status, resolution, reason):
    issue = issue_from(
        _node(
            summary="x",
            status={"name": status, "statusCategory": {"key": "done"}},
            resolution={"name": resolution},
            resolutiondate="2027-01-15T08:00:00.000+0000",
        ),
        "PROJ",
        StatusMap.of(),
        None,
    )
    assert issue.status is IssueStatus.CLOSED
    assert issue.close_reason is reason
    assert issue.closed_at == 1_800_000_000.0


def test_an_issues_url_is_its_page_on_the_site_not_the_api_link():
    status = {"name": "Backlog", "statusCategory": {"key": "new"}}
    issue = issue_from(_node(summary="Seven", status=status), "PROJ", StatusMap.of(), POINTS)
    assert issue.url == "https://acme.atlassian.net/browse/PROJ-7"
    relative = {**_node(summary="Seven", status=status), "self": "/rest/api/3/issue/10007"}
    assert issue_from(relative, "PROJ", StatusMap.of(), POINTS).url == ""
