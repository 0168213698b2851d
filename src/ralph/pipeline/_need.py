"""What a root needs from a pass over the board: work a phase can do, a person, or
nothing more. A loop that picks work starts only the first kind: a root whose issues
all wait for a person (an escalation, a plan to approve) gives an agent nothing to do,
and starting it anyway only ends at once and starts again."""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ralph.pipeline._issues import IssueState
from ralph.pipeline._stage import Stage
from ralph.workflow import WorkflowState

__all__ = ["RootNeed", "root_need"]

_S = WorkflowState
#: States no phase takes an issue out of: finished, or a person's to move.
_OUT_OF_REACH = frozenset({_S.DONE, _S.CANCELED, _S.HUMAN_NEEDED})


class RootNeed(enum.StrEnum):
    #: A phase can take at least one of its issues on.
    WORK = "work"
    #: Only a person can move it on: an issue escalated, a plan to approve.
    PERSON = "person"
    #: Done or canceled.
    NOTHING = "nothing"


def root_need(stage: Stage, issues: Sequence[IssueState], *, gate_phase: str | None) -> RootNeed:
    """What the root whose group is ``issues``, at ``stage``, needs. ``gate_phase``: the
    phase that takes a plan in review on (None when a person approves plans). The
    position's stage alone does not say it: an oversized issue is at SPLIT even once
    its split escalated, but the task graph leaves out issues in Human Needed, so no
    phase would run."""
    escalated = any(i.workflow_state == _S.HUMAN_NEEDED for i in issues)
    in_reach = [i for i in issues if i.workflow_state not in _OUT_OF_REACH]
    if stage is Stage.TERMINAL or not in_reach:
        return RootNeed.PERSON if escalated else RootNeed.NOTHING
    if stage is Stage.HUMAN_GATE and gate_phase is None:
        return RootNeed.PERSON
    if stage is Stage.TRIAGE and _kept(in_reach):
        return RootNeed.PERSON
    return RootNeed.WORK


def _kept(issues: Sequence[IssueState]) -> bool:
    """Every issue triage would take was triaged already and kept in Backlog (KEEP, a
    SPLIT it left for splitting, a person who moved it back): triage would only find its
    label again, so a loop that started it would end at once and start it again."""
    backlog = [i for i in issues if i.workflow_state in (None, "unknown", _S.BACKLOG)]
    return bool(backlog) and all(i.triaged for i in backlog)
