"""Picking work: which open issues a phase could take now, and why each of the others
is passed over, in a person's words ("#2 blocked by #3 (Research in Progress)"), so
"nothing actionable" always comes with its reason."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ralph.tracker._model import Issue
from ralph.workflow import LOCK_STATES, TERMINAL_STATES, Estimate, WorkflowState

__all__ = ["Picked", "passed_over", "pick", "still_blocks"]

#: Human Needed waits for a person; Plan in Review (also a human state) is what review
#: picks from, so only the escalation state is never picked.
_NEVER_PICKED = frozenset({WorkflowState.HUMAN_NEEDED})


def still_blocks(blocker: Issue | None) -> bool:
    """An open blocker that is not Done or Canceled; a vanished one blocks nothing."""
    return blocker is not None and blocker.is_open and blocker.workflow_state not in TERMINAL_STATES


def _state(issue: Issue | None) -> str:
    return str(issue.workflow_state) if issue is not None and issue.workflow_state else "no state"


def passed_over(
    issue: Issue,
    board: Mapping[int, Issue],
    *,
    estimates: Collection[Estimate] | None,
    locked: Collection[int],
) -> str | None:
    """Why ``issue`` (in a state the phase takes) cannot be taken now; None when it can."""
    n = issue.number
    if issue.workflow_state in LOCK_STATES:
        return f"#{n} locked ({issue.workflow_state})"
    if issue.workflow_state in _NEVER_PICKED:
        return f"#{n} waits for a person ({issue.workflow_state})"
    if n in locked:
        return f"#{n} locked (a phase has it)"
    if estimates is not None and issue.estimate not in (None, *estimates):
        takes = ", ".join(str(e) for e in sorted(estimates))
        return f"#{n} is {issue.estimate}; this takes {takes}"
    if issue.foreign_blockers:
        return f"#{n} blocked by {', '.join(issue.foreign_blockers)}"
    blockers = [b for b in issue.blocked_by if still_blocks(board.get(b))]
    if blockers:
        listed = ", ".join(f"#{b} ({_state(board.get(b))})" for b in blockers)
        return f"#{n} blocked by {listed}"
    return None


@dataclass(frozen=True)
class Picked:
    """The issues a phase could take now, best first, and why the others cannot."""

    issues: tuple[Issue, ...]
    passed_over: tuple[str, ...]
    #: The states looked in.
    states: frozenset[WorkflowState]

    def why_none(self) -> str:
        """Why nothing could be picked: each issue passed over, or that none is in the
        states looked in."""
        if self.passed_over:
            return "; ".join(self.passed_over)
        states = " or ".join(sorted(str(s) for s in self.states))
        return f"no open issue is in {states}"


def pick(
    candidates: Sequence[Issue],
    board: Mapping[int, Issue],
    states: Collection[WorkflowState],
    *,
    estimates: Collection[Estimate] | None,
    locked: Collection[int],
) -> Picked:
    """``candidates`` (open, in ``states``, best first) split into the ones a phase can
    take now and the reasons the rest cannot."""
    picked, reasons = [], []
    for issue in candidates:
        reason = passed_over(issue, board, estimates=estimates, locked=locked)
        if reason is None:
            picked.append(issue)
        else:
            reasons.append(reason)
    return Picked(tuple(picked), tuple(reasons), frozenset(states))
