"""The parent and child gate rules, decision by decision."""

from __future__ import annotations

import pytest

from ralph.workflow import WorkflowState, child_skip_reason, parent_decision

S = WorkflowState


@pytest.mark.parametrize(
    ("parent", "children", "target", "reason"),
    [
        (S.BACKLOG, [], None, "Parent has no sub-issues"),
        (S.BACKLOG, [S.READY_FOR_PLAN, S.IN_REVIEW], S.READY_FOR_PLAN, None),
        (S.READY_FOR_PLAN, [S.IN_REVIEW, S.DONE], S.IN_REVIEW, None),
        (S.IN_REVIEW, [S.DONE, S.DONE], S.DONE, None),
        (S.BACKLOG, [S.RESEARCH_IN_PROGRESS, S.DONE], None, "Not all children at a gate state"),
        (S.BACKLOG, [S.PLAN_IN_REVIEW], None, "Not all children at a gate state"),
        (S.IN_REVIEW, [S.IN_REVIEW], None, "Parent already at or past target state"),
        (S.DONE, [S.READY_FOR_PLAN], None, "Parent already at or past target state"),
        (S.HUMAN_NEEDED, [S.READY_FOR_PLAN], S.READY_FOR_PLAN, None),
        (None, [S.DONE], S.DONE, None),
        (S.BACKLOG, [S.DONE, S.HUMAN_NEEDED], None, "outside the pipeline"),
        (S.BACKLOG, [S.DONE, None], None, 'state "unknown"'),
        (S.IN_REVIEW, [S.DONE, S.CANCELED], S.DONE, None),
        (S.BACKLOG, [S.CANCELED], None, "Every sub-issue is Canceled"),
    ],
)
def test_a_parent_moves_to_its_lowest_child_only_at_a_gate(parent, children, target, reason):
    decision = parent_decision(parent, list(enumerate(children, start=10)))
    assert decision.target == target
    if reason is not None:
        assert reason in decision.reason


@pytest.mark.parametrize(
    ("current", "target", "reason"),
    [
        (S.BACKLOG, S.READY_FOR_PLAN, None),
        (S.READY_FOR_PLAN, S.READY_FOR_PLAN, "Already at target state"),
        (S.DONE, S.READY_FOR_PLAN, "Already at or past target state"),
        (S.HUMAN_NEEDED, S.READY_FOR_PLAN, "Already at or past target state"),
        (S.BACKLOG, S.CANCELED, "Already at or past target state"),
        (None, S.DONE, "No workflow state set on issue"),
    ],
)
def test_a_child_moves_only_when_earlier_than_the_target(current, target, reason):
    assert child_skip_reason(current, target) == reason
