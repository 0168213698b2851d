"""Pipeline stages and the phases that remain after each."""

from __future__ import annotations

import enum
from collections.abc import Mapping

from ralph.workflow import PHASE_SPECS

__all__ = ["REMAINING_PHASES", "Stage"]


class Stage(enum.StrEnum):
    """Where an issue or group stands in the pipeline, in the pipeline's order (an
    oversized issue is split before its pieces are triaged). Its values are the
    ``phase`` of a position in every output, as in the original."""

    SPLIT = "SPLIT"
    TRIAGE = "TRIAGE"
    RESEARCH = "RESEARCH"
    PLAN = "PLAN"
    REVIEW = "REVIEW"
    IMPLEMENT = "IMPLEMENT"
    COMPLETE = "COMPLETE"
    HUMAN_GATE = "HUMAN_GATE"
    TERMINAL = "TERMINAL"


#: The phases named like a stage, in the stages' order.
_STAGED = [stage.lower() for stage in Stage]
#: Every phase an issue meets, in that order: those named like a stage in the stages'
#: order, then the rest (pull request, merge) in the table's order. Phases added on
#: demand (a code review, addressing feedback) are not ahead of every issue.
_FULL = tuple(
    sorted(
        (s.name for s in PHASE_SPECS if not s.on_demand),
        key=lambda name: _STAGED.index(name) if name in _STAGED else len(_STAGED),
    )
)

#: The original ended every list with "pr"; Ralph has an integrator that also merges.
#: COMPLETE means the PRs exist (issues In Review), so only the merge remains.
REMAINING_PHASES: Mapping[Stage, tuple[str, ...]] = {
    **{stage: _FULL[_FULL.index(stage.lower()) :] for stage in Stage if stage.lower() in _FULL},
    Stage.COMPLETE: ("merge",),
    Stage.HUMAN_GATE: (),
    Stage.TERMINAL: (),
}
