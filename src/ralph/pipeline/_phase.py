"""Pipeline phases and what remains after each."""

from __future__ import annotations

import enum
from collections.abc import Mapping

__all__ = ["REMAINING_PHASES", "Phase"]


class Phase(enum.StrEnum):
    """Where an issue or group stands in the pipeline."""

    SPLIT = "SPLIT"
    TRIAGE = "TRIAGE"
    RESEARCH = "RESEARCH"
    PLAN = "PLAN"
    REVIEW = "REVIEW"
    IMPLEMENT = "IMPLEMENT"
    COMPLETE = "COMPLETE"
    HUMAN_GATE = "HUMAN_GATE"
    TERMINAL = "TERMINAL"


_FULL = ("split", "triage", "research", "plan", "review", "implement", "pr", "merge")

#: The original ended every list with "pr"; Ralph has an integrator that also merges.
#: COMPLETE means the PRs exist (issues In Review), so only the merge remains.
REMAINING_PHASES: Mapping[Phase, tuple[str, ...]] = {
    Phase.SPLIT: _FULL,
    Phase.TRIAGE: _FULL[1:],
    Phase.RESEARCH: _FULL[2:],
    Phase.PLAN: _FULL[3:],
    Phase.REVIEW: _FULL[4:],
    Phase.IMPLEMENT: _FULL[5:],
    Phase.COMPLETE: ("merge",),
    Phase.HUMAN_GATE: (),
    Phase.TERMINAL: (),
}
