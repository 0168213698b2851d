"""Kill safety of the LinearTracker: each write whose answer is lost (the connection
dropped after Linear applied it, or before it arrived) is reconciled by the tracker and
leaves exactly one issue, sub-issue, comment, relation or move, as
tests/integration/github/test_fault_script.py shows for GitHub. A rerun of a move or a
relation that landed changes nothing."""

from __future__ import annotations

import pytest

from ralph.linear.fake import ScriptedFault
from ralph.tracker.linear import LinearTracker, set_up_team
from ralph.workflow import WorkflowState, parse_transition_comments

pytestmark = pytest.mark.timeout(60)

S = WorkflowState
FAULTS = [ScriptedFault.dropped_after_write, ScriptedFault.dropped]


@pytest.fixture
def tracker(fake, client, clock) -> LinearTracker:
    set_up_team(client, "ENG")
    return LinearTracker(client, "ENG", clock=clock)


@pytest.fixture(autouse=True)
def every_scripted_fault_is_used(fake):
    yield
    assert fake.faults == []  # a fault no request matched tested nothing
    assert fake.internal_errors == []


def bodies(fake, number: int) -> list[str]:
    return [c.body for c in fake.workspace.issue(f"ENG-{number}").comment_list]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_create_issue_whose_answer_was_lost_leaves_exactly_one_issue(fake, tracker, fault):
    fake.script(fault("CreateIssue"))
    issue = tracker.create_issue("Once only", state=S.BACKLOG, labels=["bug"])
    assert [i.title for i in fake.workspace.issues.values()] == ["Once only"]
    assert (issue.number, issue.labels) == (1, ("bug",))


@pytest.mark.parametrize("fault", FAULTS)
def test_a_sub_issue_whose_answer_was_lost_is_one_child_of_its_parent(fake, tracker, fault):
    epic = tracker.create_issue("Epic")
    fake.script(fault("CreateIssue"))
    child = tracker.create_issue("Part", parent=epic.number)
    assert tracker.get_issue(epic.number).sub_issues == (child.number,)
    assert len(fake.workspace.issues) == 2


@pytest.mark.parametrize("fault", FAULTS)
def test_placing_an_issue_under_a_parent_survives_a_lost_answer_and_a_rerun(fake, tracker, fault):
    epic = tracker.create_issue("Epic")
    part = tracker.create_issue("Part")
    fake.script(fault("UpdateIssue"))
    tracker.add_sub_issue(epic.number, part.number)
    tracker.add_sub_issue(epic.number, part.number)  # a rerun
    assert tracker.get_issue(epic.number).sub_issues == (part.number,)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_comment_whose_answer_was_lost_is_posted_once(fake, tracker, fault):
    tracker.create_issue("Commented")
    fake.script(fault("CreateComment"))
    comment = tracker.add_comment(1, "## Research\n\nDone.")
    assert bodies(fake, 1) == ["## Research\n\nDone."]
    assert (comment.body, comment.author) == ("## Research\n\nDone.", "Ada Lovelace")


@pytest.mark.parametrize("operation", ["MoveIssue"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_move_whose_answer_was_lost_lands_once_with_one_audit_comment(
    fake, tracker, fault, operation
):
    tracker.create_issue("Moving", state=S.RESEARCH_NEEDED)
    fake.script(fault(operation))
    tracker.set_state(1, S.RESEARCH_IN_PROGRESS, command="ralph_research")
    rerun = tracker.set_state(1, S.RESEARCH_IN_PROGRESS, command="ralph_research")
    assert not rerun.changed
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.RESEARCH_IN_PROGRESS
    records = parse_transition_comments("\n".join(c.body for c in issue.comments))
    assert [(r.from_state, r.to_state) for r in records] == [
        (S.RESEARCH_NEEDED.value, S.RESEARCH_IN_PROGRESS.value)
    ]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_noted_move_whose_answer_was_lost_lands_once_with_its_note_and_audit(
    fake, tracker, fault
):
    tracker.create_issue("Noted", state=S.RESEARCH_NEEDED)
    fake.script(fault("MoveIssueNoted"))
    with tracker.snapshot():
        tracker.add_note(1, "## Research Document")
        tracker.set_state(1, S.RESEARCH_IN_PROGRESS, command="ralph_research")
    assert state_name(fake, 1) == S.RESEARCH_IN_PROGRESS.value
    posted = bodies(fake, 1)
    assert posted[0] == "## Research Document"
    assert len(posted) == 2
    records = parse_transition_comments(posted[1])
    assert [(r.from_state, r.to_state) for r in records] == [
        (S.RESEARCH_NEEDED.value, S.RESEARCH_IN_PROGRESS.value)
    ]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_dependency_whose_answer_was_lost_is_one_relation_even_after_a_rerun(
    fake, tracker, fault
):
    tracker.create_issue("Blocked")
    tracker.create_issue("Blocker")
    fake.script(fault("CreateIssueRelation"))
    tracker.add_dependency(1, 2)
    tracker.add_dependency(1, 2)  # a rerun
    assert len(fake.workspace.relations) == 1
    assert tracker.get_issue(1).blocked_by == (2,)


def test_a_close_whose_answer_was_lost_is_closed(fake, tracker):
    tracker.create_issue("Closing", state=S.IN_REVIEW)
    fake.script(ScriptedFault.dropped_after_write("UpdateIssue"))
    assert not tracker.close_issue(1).is_open


def state_name(fake, number: int) -> str:
    return str(fake.workspace.issue(f"ENG-{number}").state.name)
