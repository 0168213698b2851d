"""Where an escalated issue goes back to: for every state an issue can be escalated from,
a state Human Needed may move to, where the same phase starts again."""

from __future__ import annotations

import pytest

from ralph.phases import RETRY_FROM
from ralph.workflow import ALLOWED_TRANSITIONS, WorkflowState

_S = WorkflowState
ESCALATED_FROM = [s for s, targets in ALLOWED_TRANSITIONS.items() if _S.HUMAN_NEEDED in targets]


@pytest.mark.parametrize("state", ESCALATED_FROM, ids=str)
def test_every_state_an_issue_escalates_from_has_a_way_back(state: WorkflowState) -> None:
    assert state in RETRY_FROM
    assert RETRY_FROM[state] in ALLOWED_TRANSITIONS[_S.HUMAN_NEEDED]


@pytest.mark.parametrize(
    ("escalated_from", "back_to"),
    [
        (_S.BACKLOG, _S.BACKLOG),
        (_S.RESEARCH_IN_PROGRESS, _S.RESEARCH_NEEDED),
        (_S.PLAN_IN_PROGRESS, _S.READY_FOR_PLAN),
        (_S.PLAN_IN_REVIEW, _S.READY_FOR_PLAN),
        (_S.IN_REVIEW, _S.IN_PROGRESS),
    ],
)
def test_a_lock_state_goes_back_to_where_its_phase_took_the_issue(
    escalated_from: WorkflowState, back_to: WorkflowState
) -> None:
    assert RETRY_FROM[escalated_from] is back_to
