"""The eight phases by name."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import InvalidInput
from ralph.phases._implement import ImplementPhase
from ralph.phases._merge import MergePhase
from ralph.phases._phase import Phase
from ralph.phases._plan import PlanPhase
from ralph.phases._pr import PullRequestPhase
from ralph.phases._research import ResearchPhase
from ralph.phases._review import ReviewPhase
from ralph.phases._split import SplitPhase
from ralph.phases._triage import TriagePhase

__all__ = ["PHASES", "get_phase"]

#: The original's command names for phases named differently here.
_ALIASES = {"impl": "implement"}

PHASES: Mapping[str, Phase] = {
    phase.name: phase
    for phase in (
        TriagePhase(),
        SplitPhase(),
        ResearchPhase(),
        PlanPhase(),
        ReviewPhase(),
        ImplementPhase(),
        PullRequestPhase(),
        MergePhase(),
    )
}


def get_phase(name: str) -> Phase:
    bare = name.removeprefix("ralph_")
    phase = PHASES.get(_ALIASES.get(bare, bare))
    if phase is None:
        raise InvalidInput(f"unknown phase {name!r}; phases are: {', '.join(PHASES)}")
    return phase
