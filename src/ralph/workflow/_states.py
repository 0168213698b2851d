"""The workflow states, estimates and priorities, with the original's names and order.

Names are the exact option names of the GitHub project fields, so a board can move
between the original system and Ralph unchanged.
"""

from __future__ import annotations

import enum

from ralph.errors import InvalidInput, UnknownState

__all__ = [
    "HUMAN_STATES",
    "LOCK_STATES",
    "OVERSIZED_ESTIMATES",
    "PARENT_GATE_STATES",
    "STATE_ORDER",
    "TERMINAL_STATES",
    "TRIAGED_LABEL",
    "WORKFLOW_STATE_TO_STATUS",
    "Estimate",
    "Priority",
    "WorkflowState",
    "is_earlier_state",
    "parse_estimate",
    "parse_priority",
    "parse_state",
    "state_index",
]


class WorkflowState(enum.StrEnum):
    """One of the 11 values of the "Workflow State" project field."""

    BACKLOG = "Backlog"
    RESEARCH_NEEDED = "Research Needed"
    RESEARCH_IN_PROGRESS = "Research in Progress"
    READY_FOR_PLAN = "Ready for Plan"
    PLAN_IN_PROGRESS = "Plan in Progress"
    PLAN_IN_REVIEW = "Plan in Review"
    IN_PROGRESS = "In Progress"
    IN_REVIEW = "In Review"
    DONE = "Done"
    HUMAN_NEEDED = "Human Needed"
    CANCELED = "Canceled"


_S = WorkflowState

#: The pipeline order used for "earlier / later" comparisons. Human Needed and Canceled
#: are outside the pipeline (index -1), as in the original.
STATE_ORDER: tuple[WorkflowState, ...] = (
    _S.BACKLOG,
    _S.RESEARCH_NEEDED,
    _S.RESEARCH_IN_PROGRESS,
    _S.READY_FOR_PLAN,
    _S.PLAN_IN_PROGRESS,
    _S.PLAN_IN_REVIEW,
    _S.IN_PROGRESS,
    _S.IN_REVIEW,
    _S.DONE,
)

TERMINAL_STATES = frozenset({_S.DONE, _S.CANCELED})
LOCK_STATES = frozenset({_S.RESEARCH_IN_PROGRESS, _S.PLAN_IN_PROGRESS, _S.IN_PROGRESS})
HUMAN_STATES = frozenset({_S.HUMAN_NEEDED, _S.PLAN_IN_REVIEW})
#: A parent advances only when the least advanced child reaches one of these.
PARENT_GATE_STATES = frozenset({_S.READY_FOR_PLAN, _S.IN_REVIEW, _S.DONE})

#: One-way sync of the built-in "Status" field from the workflow state.
WORKFLOW_STATE_TO_STATUS: dict[WorkflowState, str] = {
    _S.BACKLOG: "Todo",
    _S.RESEARCH_NEEDED: "Todo",
    _S.RESEARCH_IN_PROGRESS: "In Progress",
    _S.READY_FOR_PLAN: "Todo",
    _S.PLAN_IN_PROGRESS: "In Progress",
    _S.PLAN_IN_REVIEW: "Todo",
    _S.IN_PROGRESS: "In Progress",
    _S.IN_REVIEW: "In Progress",
    _S.DONE: "Done",
    # Not Done: a board's "close the issue when Status is Done" automation would close
    # every escalation. Canceled is terminal and closed anyway, so Done is right.
    _S.HUMAN_NEEDED: "In Progress",
    _S.CANCELED: "Done",
}


class Estimate(enum.StrEnum):
    """T-shirt sizes, ordered XS < S < M < L < XL."""

    XS = "XS"
    S = "S"
    M = "M"
    L = "L"
    XL = "XL"

    @property
    def points(self) -> int:
        """The original's numeric value: XS=1 ... XL=5."""
        return list(Estimate).index(self) + 1

    @property
    def oversized(self) -> bool:
        """M, L and XL issues are split before anyone researches them."""
        return self in OVERSIZED_ESTIMATES

    def __lt__(self, other: str) -> bool:
        if not isinstance(other, Estimate):
            return NotImplemented
        return self.points < other.points

    def __le__(self, other: str) -> bool:
        if not isinstance(other, Estimate):
            return NotImplemented
        return self.points <= other.points

    def __gt__(self, other: str) -> bool:
        if not isinstance(other, Estimate):
            return NotImplemented
        return self.points > other.points

    def __ge__(self, other: str) -> bool:
        if not isinstance(other, Estimate):
            return NotImplemented
        return self.points >= other.points


OVERSIZED_ESTIMATES = frozenset({Estimate.M, Estimate.L, Estimate.XL})
#: The label triage puts on every issue it triaged (the original's): an issue with it is
#: not triaged again until a person takes the label off.
TRIAGED_LABEL = "ralph-triage"


class Priority(enum.StrEnum):
    """P0 (drop everything) to P3 (nice to have); sorts most urgent first."""

    P0 = "P0"
    P1 = "P1"
    P2 = "P2"
    P3 = "P3"


def parse_state(value: str) -> WorkflowState:
    """The state named exactly ``value`` (case-sensitive, as on the board)."""
    try:
        return WorkflowState(value)
    except ValueError:
        raise UnknownState(value, [s.value for s in WorkflowState]) from None


def parse_estimate(value: str) -> Estimate:
    try:
        return Estimate(value)
    except ValueError:
        valid = ", ".join(e.value for e in Estimate)
        raise InvalidInput(f"Unknown estimate {value!r}. Valid estimates: {valid}.") from None


def parse_priority(value: str) -> Priority:
    try:
        return Priority(value)
    except ValueError:
        valid = ", ".join(p.value for p in Priority)
        raise InvalidInput(f"Unknown priority {value!r}. Valid priorities: {valid}.") from None


def state_index(state: str | None) -> int:
    """Position in :data:`STATE_ORDER`, or -1 for Human Needed, Canceled and unknowns."""
    for index, known in enumerate(STATE_ORDER):
        if known == state:
            return index
    return -1


def is_earlier_state(a: str | None, b: str | None) -> bool:
    """True when both states are in the pipeline and ``a`` comes before ``b``."""
    ia, ib = state_index(a), state_index(b)
    return ia >= 0 and ib >= 0 and ia < ib
