"""The transition matrix, enforced.

The original shipped this matrix as data and checked nothing against it; here every
state change goes through :func:`check_transition`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import InvalidTransition
from ralph.workflow._states import WorkflowState, parse_state

__all__ = [
    "ALLOWED_TRANSITIONS",
    "COMMAND_TRANSITIONS",
    "allowed_targets",
    "check_transition",
    "is_allowed",
]

_S = WorkflowState

#: from-state -> the states it may move to (docs/compatibility.md). Targets keep the original's
#: order, which is also the order error messages list them in.
ALLOWED_TRANSITIONS: Mapping[WorkflowState, tuple[WorkflowState, ...]] = {
    # Backlog -> Human Needed is ours: triage and split escalate from Backlog, which the
    # original allowed only because it never checked this matrix. In Progress -> Research
    # Needed is the XS fast track's one fall back to the full pipeline.
    _S.BACKLOG: (
        _S.RESEARCH_NEEDED,
        _S.READY_FOR_PLAN,
        _S.DONE,
        _S.CANCELED,
        _S.HUMAN_NEEDED,
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


#: Moves only one command makes, on top of the matrix: Backlog -> In Progress is triage's
#: XS fast track (Ralph wrote the plan), never a person's shortcut past the pipeline.
COMMAND_TRANSITIONS: Mapping[str, Mapping[WorkflowState, tuple[WorkflowState, ...]]] = {
    "ralph_triage": {_S.BACKLOG: (_S.IN_PROGRESS,)},
}


def allowed_targets(from_state: str, command: str | None = None) -> tuple[WorkflowState, ...]:
    """The states ``from_state`` may move to (for ``command``, with its own moves);
    raises UnknownState for a bad name."""
    state = parse_state(from_state)
    own = COMMAND_TRANSITIONS.get(command or "", {}).get(state, ())
    return ALLOWED_TRANSITIONS[state] + own


def is_allowed(from_state: str, to_state: str, command: str | None = None) -> bool:
    return parse_state(to_state) in allowed_targets(from_state, command)


def check_transition(from_state: str, to_state: str, command: str | None = None) -> WorkflowState:
    """Return ``to_state`` as a WorkflowState, or raise InvalidTransition naming the allowed
    targets (``command``'s own moves too). Staying in the same state is not a transition
    and is refused too."""
    target = parse_state(to_state)
    allowed = allowed_targets(from_state, command)
    if target not in allowed:
        raise InvalidTransition(from_state, to_state, [s.value for s in allowed])
    return target
