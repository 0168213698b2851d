"""The phases by name, in the order of ``ralph.workflow.PHASE_SPECS``."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import InvalidInput
from ralph.phases._address import AddressPhase
from ralph.phases._code_review import CodeReviewPhase
from ralph.phases._implement import ImplementPhase
from ralph.phases._merge import MergePhase
from ralph.phases._phase import Phase
from ralph.phases._plan import PlanPhase
from ralph.phases._pr import PullRequestPhase
from ralph.phases._research import ResearchPhase
from ralph.phases._review import ReviewPhase
from ralph.phases._split import SplitPhase
from ralph.phases._triage import TriagePhase
from ralph.workflow import PHASE_SPECS, find_phase

__all__ = ["PHASES", "get_phase"]

_IMPLEMENTED: Mapping[str, Phase] = {
    phase.name: phase
    for phase in (
        TriagePhase(),
        SplitPhase(),
        ResearchPhase(),
        PlanPhase(),
        ReviewPhase(),
        ImplementPhase(),
        PullRequestPhase(),
        CodeReviewPhase(),
        AddressPhase(),
        MergePhase(),
    )
}

#: A phase of the table without its code here fails at import, not at its first run.
PHASES: Mapping[str, Phase] = {spec.name: _IMPLEMENTED[spec.name] for spec in PHASE_SPECS}


def get_phase(name: str) -> Phase:
    """The phase by its name or its command's (``implement``, ``impl``, ``ralph_impl``)."""
    spec = find_phase(name)
    if spec is None:
        raise InvalidInput(f"unknown phase {name!r}; phases are: {', '.join(PHASES)}")
    return PHASES[spec.name]
