"""Gate rules between parents and children (the original's advance_parent /
advance_children). Pure decisions; a tracker applies them.

One deliberate change: a Canceled child no longer blocks its parent forever (the
original's quirk). Canceled children are left out of the minimum, unless every child is
Canceled, in which case the parent has nothing to follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ralph.workflow._states import (
    PARENT_GATE_STATES,
    STATE_ORDER,
    WorkflowState,
    is_earlier_state,
    state_index,
)

__all__ = ["ParentDecision", "child_skip_reason", "parent_decision"]


@dataclass(frozen=True)
class ParentDecision:
    """``target`` is the state the parent should move to, or None with the ``reason``."""

    target: WorkflowState | None
    reason: str
    minimum: WorkflowState | None = None


def parent_decision(
    parent_state: str | None, children: Sequence[tuple[int, str | None]]
) -> ParentDecision:
    """Where a parent goes given its children's ``(number, state)``: to the lowest child
    state, when that is a gate state (Ready for Plan, In Review, Done) and ahead of the
    parent. A child outside the pipeline (Human Needed, no state) holds the parent."""
    if not children:
        return ParentDecision(None, "Parent has no sub-issues")
    counted = [(n, s) for n, s in children if s != WorkflowState.CANCELED]
    if not counted:
        return ParentDecision(None, "Every sub-issue is Canceled")
    for number, state in counted:
        if state_index(state) < 0:
            return ParentDecision(
                None,
                f'Child #{number} is in state "{state or "unknown"}" which is outside the '
                "pipeline -- blocks parent advancement",
            )
    minimum = STATE_ORDER[min(state_index(s) for _, s in counted)]
    if minimum not in PARENT_GATE_STATES:
        return ParentDecision(None, "Not all children at a gate state", minimum)
    if state_index(parent_state) >= state_index(minimum):
        return ParentDecision(None, "Parent already at or past target state", minimum)
    return ParentDecision(minimum, f"All children at or past {minimum}", minimum)


def child_skip_reason(current: str | None, target: str) -> str | None:
    """Why ``advance_children`` leaves a child alone, or None when it should move: only
    children strictly earlier in the pipeline than ``target`` move."""
    if current is None:
        return "No workflow state set on issue"
    if current == target:
        return "Already at target state"
    if not is_earlier_state(current, target):
        return "Already at or past target state"
    return None
