"""Pipeline position: which phase an issue or a group is in, and whether it converged.

The rules are the original's, checked in its order (docs/compatibility.md); the first that
matches wins. One deliberate change: issues that are all In Review, Done or Canceled
with at least one In Review are COMPLETE (the merge remains), not TERMINAL.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph.pipeline._issues import IssueState
from ralph.pipeline._roster import SuggestedRoster, roster_for
from ralph.pipeline._stage import REMAINING_PHASES, Stage
from ralph.workflow import WorkflowState

__all__ = [
    "BlockingIssue",
    "Convergence",
    "PipelinePosition",
    "Recommendation",
    "detect_position",
]

_S = WorkflowState


class Recommendation(enum.StrEnum):
    PROCEED = "proceed"
    WAIT = "wait"
    ESCALATE = "escalate"


@dataclass(frozen=True)
class BlockingIssue:
    """An issue that keeps a group from converging, with the state it is in."""

    number: int
    state: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "state": self.state}


@dataclass(frozen=True, kw_only=True)
class Convergence:
    """Whether every issue of a group has reached the phase's entry state."""

    required: bool
    met: bool
    blocking: tuple[BlockingIssue, ...] = ()

    @property
    def recommendation(self) -> Recommendation:
        if self.met:
            return Recommendation.PROCEED
        if any(b.state == _S.HUMAN_NEEDED for b in self.blocking):
            return Recommendation.ESCALATE
        return Recommendation.WAIT

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "met": self.met,
            "blocking": [b.to_dict() for b in self.blocking],
            "recommendation": self.recommendation.value,
        }


@dataclass(frozen=True, kw_only=True)
class PipelinePosition:
    phase: Stage
    reason: str
    issues: tuple[IssueState, ...]
    convergence: Convergence
    is_group: bool
    group_primary: int | None
    suggested_roster: SuggestedRoster
    remaining_phases: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "remaining_phases", REMAINING_PHASES[self.phase])

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape, camelCase keys."""
        return {
            "phase": self.phase.value,
            "reason": self.reason,
            "remainingPhases": list(self.remaining_phases),
            "issues": [i.to_dict() for i in self.issues],
            "convergence": self.convergence.to_dict(),
            "isGroup": self.is_group,
            "groupPrimary": self.group_primary,
            "suggestedRoster": self.suggested_roster.to_dict(),
        }


_NO_CONVERGENCE_NEEDED = Convergence(required=False, met=True)


def _blocking(issues: Iterable[IssueState]) -> tuple[BlockingIssue, ...]:
    return tuple(BlockingIssue(i.number, i.workflow_state) for i in issues)


def _classify(issues: Sequence[IssueState], is_group: bool) -> tuple[Stage, str, Convergence]:
    if not issues:
        return Stage.TRIAGE, "No issues provided", _NO_CONVERGENCE_NEEDED

    oversized = [i for i in issues if i.oversized]
    if oversized:
        listed = ", ".join(f"#{i.number}={i.estimate}" for i in oversized)
        reason = f"{len(oversized)} issue(s) need splitting (estimate: {listed})"
        return Stage.SPLIT, reason, _NO_CONVERGENCE_NEEDED

    stateless = [i for i in issues if not i.workflow_state or i.workflow_state == "unknown"]
    if stateless:
        reason = f"{len(stateless)} issue(s) have no workflow state; triage first"
        return Stage.TRIAGE, reason, _NO_CONVERGENCE_NEEDED

    count = Counter(i.workflow_state for i in issues)
    total = len(issues)

    def only(*states: WorkflowState) -> bool:
        return sum(count[s] for s in states) == total

    needs, researching = count[_S.RESEARCH_NEEDED], count[_S.RESEARCH_IN_PROGRESS]
    if needs + researching > 0:
        blocking = _blocking(
            [i for i in issues if i.workflow_state == _S.RESEARCH_NEEDED]
            + [i for i in issues if i.workflow_state == _S.RESEARCH_IN_PROGRESS]
        )
        convergence = Convergence(required=is_group, met=False, blocking=blocking)
        return Stage.RESEARCH, f"{needs} need research, {researching} in progress", convergence
    if only(_S.READY_FOR_PLAN):
        convergence = Convergence(required=is_group, met=True)
        return Stage.PLAN, "All issues ready for planning", convergence
    planning, in_review = count[_S.PLAN_IN_PROGRESS], count[_S.PLAN_IN_REVIEW]
    if planning:
        reason = f"{planning} plan(s) in progress, {in_review} in review"
        return Stage.REVIEW, reason, _NO_CONVERGENCE_NEEDED
    if only(_S.PLAN_IN_REVIEW):
        return Stage.HUMAN_GATE, "All plans awaiting human approval", _NO_CONVERGENCE_NEEDED
    if in_review:
        return Stage.REVIEW, f"{in_review} plan(s) in review", _NO_CONVERGENCE_NEEDED
    if count[_S.IN_PROGRESS]:
        reason = f"{count[_S.IN_PROGRESS]} issue(s) in progress"
        return Stage.IMPLEMENT, reason, _NO_CONVERGENCE_NEEDED
    if only(_S.IN_REVIEW, _S.DONE, _S.CANCELED):
        if count[_S.IN_REVIEW]:
            reason = f"{count[_S.IN_REVIEW]} issue(s) in review, awaiting merge"
            return Stage.COMPLETE, reason, _NO_CONVERGENCE_NEEDED
        return Stage.TERMINAL, "All issues done or canceled", _NO_CONVERGENCE_NEEDED
    if count[_S.HUMAN_NEEDED]:
        reason = f"{count[_S.HUMAN_NEEDED]} issue(s) need human intervention"
        return Stage.TERMINAL, reason, _NO_CONVERGENCE_NEEDED
    if count[_S.BACKLOG]:
        return Stage.TRIAGE, f"{count[_S.BACKLOG]} issue(s) in Backlog", _NO_CONVERGENCE_NEEDED
    if count[_S.READY_FOR_PLAN]:
        blocking = _blocking(i for i in issues if i.workflow_state != _S.READY_FOR_PLAN)
        convergence = Convergence(required=is_group, met=False, blocking=blocking)
        return Stage.PLAN, "Some issues ready for planning, mixed states", convergence
    return Stage.TRIAGE, "Mixed states, defaulting to triage", _NO_CONVERGENCE_NEEDED


def detect_position(
    issues: Sequence[IssueState | Mapping[str, Any]], *, is_group: bool, group_primary: int | None
) -> PipelinePosition:
    """The phase of ``issues`` (one issue, or the members of a group), why, what remains,
    whether the group converged, and the roster to staff it. Never raises on any mix of
    states and estimates. Issues may also be the original's camelCase JSON objects."""
    members = tuple(i if isinstance(i, IssueState) else IssueState.from_dict(i) for i in issues)
    phase, reason, convergence = _classify(members, is_group)
    roster: SuggestedRoster = roster_for(phase, members)
    return PipelinePosition(
        phase=phase,
        reason=reason,
        issues=members,
        convergence=convergence,
        is_group=is_group,
        group_primary=group_primary,
        suggested_roster=roster,
    )
