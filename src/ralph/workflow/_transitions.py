"""The transition matrix, enforced.

The original shipped this matrix as data and checked nothing against it; here every
state change goes through :func:`check_transition`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import InvalidTransition
from ralph.workflow._states import WorkflowState, parse_state

__all__ = ["ALLOWED_TRANSITIONS", "allowed_targets", "check_transition", "is_allowed"]

_S = WorkflowState

#: from-state -> the states it may move to (docs/compatibility.md). Targets keep the original's
#: order, which is also the order error messages list them in.
ALLOWED_TRANSITIONS: Mapping[WorkflowState, tuple[WorkflowState, ...]] = {
    # Backlog -> Human Needed is ours: triage and split escalate from Backlog, which the
    # original allowed only because it never checked this matrix. Backlog -> In Progress
    # is the XS fast track's (the original moved there unchecked too), and In Progress ->
    # Research Needed its one fall back to the full pipeline.
    _S.BACKLOG: (
        _S.RESEARCH_NEEDED,
        _S.READY_FOR_PLAN,
        _S.DONE,
        _S.CANCELED,
        _S.HUMAN_NEEDED,
        _S.IN_PROGRESS,
    ),
    _S.RESEARCH_NEEDED: (_S.RESEARCH_IN_PROGRESS, _S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
    _S.RESEARCH_IN_PROGRESS: (_S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
    _S.READY_FOR_PLAN: (_S.PLAN_IN_PROGRESS, _S.HUMAN_NEEDED),
    _S.PLAN_IN_PROGRESS: (_S.PLAN_IN_REVIEW, _S.HUMAN_NEEDED),
    _S.PLAN_IN_REVIEW: (_S.IN_PROGRESS, _S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
    _S.IN_PROGRESS: (_S.IN_REVIEW, _S.HUMAN_NEEDED, _S.RESEARCH_NEEDED),
    _S.IN_REVIEW: (_S.DONE, _S.IN_PROGRESS, _S.HUMAN_NEEDED),
    _S.HUMAN_NEEDED: (_S.BACKLOG, _S.RESEARCH_NEEDED, _S.READY_FOR_PLAN, _S.IN_PROGRESS),
    _S.DONE: (),
    _S.CANCELED: (),
}


def allowed_targets(from_state: str) -> tuple[WorkflowState, ...]:
    """The states ``from_state`` may move to; raises UnknownState for a bad name."""
    return ALLOWED_TRANSITIONS[parse_state(from_state)]


def is_allowed(from_state: str, to_state: str) -> bool:
    return parse_state(to_state) in allowed_targets(from_state)


def check_transition(from_state: str, to_state: str) -> WorkflowState:
    """Return ``to_state`` as a WorkflowState, or raise InvalidTransition naming the allowed
    targets. Staying in the same state is not a transition and is refused too."""
    target = parse_state(to_state)
    allowed = allowed_targets(from_state)
    if target not in allowed:
        raise InvalidTransition(from_state, to_state, [s.value for s in allowed])
    return target
