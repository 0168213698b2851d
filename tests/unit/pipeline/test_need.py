"""What a root needs, state by state: a phase's work, a person, or nothing. A root whose
issues all wait for a person is never work, whatever its stage says (an oversized issue
whose split escalated is still at SPLIT)."""

from __future__ import annotations

import pytest

from ralph.pipeline import IssueState, RootNeed, Stage, detect_position, root_need
from ralph.workflow import WorkflowState

_S = WorkflowState
_WORK, _PERSON, _NOTHING = RootNeed.WORK, RootNeed.PERSON, RootNeed.NOTHING


def need(*issues: IssueState, gate_phase: str | None = "review") -> RootNeed:
    stage = detect_position(issues, is_group=len(issues) > 1, group_primary=None).phase
    return root_need(stage, issues, gate_phase=gate_phase)


def one(state: WorkflowState | None, estimate: str = "XS", number: int = 1) -> IssueState:
    return IssueState(number, workflow_state=state.value if state else None, estimate=estimate)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (None, _WORK),
        (_S.BACKLOG, _WORK),
        (_S.RESEARCH_NEEDED, _WORK),
        (_S.RESEARCH_IN_PROGRESS, _WORK),
        (_S.READY_FOR_PLAN, _WORK),
        (_S.PLAN_IN_PROGRESS, _WORK),
        (_S.PLAN_IN_REVIEW, _WORK),
        (_S.IN_PROGRESS, _WORK),
        (_S.IN_REVIEW, _WORK),
        (_S.HUMAN_NEEDED, _PERSON),
        (_S.DONE, _NOTHING),
        (_S.CANCELED, _NOTHING),
    ],
)
def test_one_small_issue_needs_what_its_state_says(state, expected):
    assert need(one(state)) is expected


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (_S.BACKLOG, _WORK),
        (_S.RESEARCH_NEEDED, _WORK),
        (_S.HUMAN_NEEDED, _PERSON),  # its split escalated: still SPLIT, but a person's
        (_S.DONE, _NOTHING),
        (_S.CANCELED, _NOTHING),
    ],
)
def test_an_oversized_issue_is_split_only_while_a_phase_can_take_it(state, expected):
    issue = one(state, estimate="M")
    assert detect_position([issue], is_group=False, group_primary=None).phase is Stage.SPLIT
    assert need(issue) is expected


def test_a_plan_in_review_waits_for_a_person_only_when_a_person_approves_plans():
    plan = one(_S.PLAN_IN_REVIEW)
    assert need(plan, gate_phase="review") is _WORK
    assert need(plan, gate_phase="implement") is _WORK
    assert need(plan, gate_phase=None) is _PERSON


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        pytest.param((_S.HUMAN_NEEDED, _S.RESEARCH_NEEDED), _WORK, id="one escalated, one going"),
        pytest.param((_S.HUMAN_NEEDED, _S.DONE), _PERSON, id="one escalated, one done"),
        pytest.param((_S.HUMAN_NEEDED, _S.HUMAN_NEEDED), _PERSON, id="all escalated"),
        pytest.param((_S.DONE, _S.CANCELED), _NOTHING, id="all finished"),
        pytest.param((_S.IN_REVIEW, _S.DONE), _WORK, id="a merge left"),
        pytest.param((_S.HUMAN_NEEDED, _S.READY_FOR_PLAN), _PERSON, id="the position waits"),
    ],
)
def test_a_group_has_work_while_a_phase_can_take_one_of_its_issues(states, expected):
    issues = [one(state, number=n) for n, state in enumerate(states, start=1)]
    assert need(*issues) is expected


def triaged(state: WorkflowState | None, estimate: str = "XS", number: int = 1) -> IssueState:
    return IssueState(
        number, workflow_state=state.value if state else None, estimate=estimate, triaged=True
    )


def test_an_issue_triage_kept_in_backlog_waits_for_a_person_not_for_triage_again():
    assert need(triaged(_S.BACKLOG)) is _PERSON
    assert need(triaged(None)) is _PERSON


def test_a_triaged_issue_moved_on_is_work_for_its_next_phase():
    assert need(triaged(_S.RESEARCH_NEEDED)) is _WORK


def test_an_oversized_triaged_issue_is_still_split():
    assert need(triaged(_S.BACKLOG, estimate="L")) is _WORK


def test_a_group_with_one_untriaged_issue_in_backlog_is_triage_work():
    assert need(triaged(_S.BACKLOG), one(_S.BACKLOG, number=2)) is _WORK
