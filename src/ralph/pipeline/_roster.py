"""How many workers of each role a pipeline position calls for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ralph.pipeline._issues import IssueState
from ralph.pipeline._stage import Stage
from ralph.workflow import OVERSIZED_ESTIMATES, TERMINAL_STATES, WorkflowState

if TYPE_CHECKING:
    from ralph.pipeline._position import PipelinePosition
    from ralph.pipeline._streams import WorkStream, WorkStreamResult

__all__ = ["MAX_BUILDERS", "SuggestedRoster", "roster_for", "suggest_roster"]

#: Builders beyond three stop paying off: they share one integrator and one main branch.
MAX_BUILDERS = 3
#: Reviews of different issues run side by side; three keep up with three builders.
MAX_VALIDATORS = 3
#: Merges run one at a time per repository; a second integrator opens pull requests
#: while the first merges, and a third would only wait for the merge slot.
MAX_INTEGRATORS = 2
#: Open issues from which a team takes a second validator and integrator (the
#: original's "two integrators from five issues"), and a third validator at twice that.
GROWN_TEAM_ISSUES = 5

_RESEARCHING = frozenset({WorkflowState.RESEARCH_NEEDED, WorkflowState.RESEARCH_IN_PROGRESS})
_ANALYST_STAGES = frozenset({Stage.RESEARCH, Stage.SPLIT, Stage.TRIAGE})


@dataclass(frozen=True)
class SuggestedRoster:
    analyst: int
    builder: int
    validator: int = 1
    integrator: int = 1

    def to_dict(self) -> dict[str, int]:
        return {
            "analyst": self.analyst,
            "builder": self.builder,
            "validator": self.validator,
            "integrator": self.integrator,
        }


def roster_for(phase: Stage, issues: Sequence[IssueState]) -> SuggestedRoster:
    """The original's formula: analysts by issues needing research (only while research,
    split or triage is ahead), two builders when five or more issues are M/L/XL, and
    validators and integrators growing with the open issues (a second of each from five,
    a third validator from ten)."""
    researching = sum(1 for i in issues if i.workflow_state in _RESEARCHING)
    analyst = 0
    if phase in _ANALYST_STAGES:
        analyst = 1 if researching <= 1 else 2 if researching <= 5 else 3
    oversized = sum(1 for i in issues if i.estimate in OVERSIZED_ESTIMATES)
    open_issues = sum(1 for i in issues if i.workflow_state not in TERMINAL_STATES)
    grown = open_issues // GROWN_TEAM_ISSUES
    return SuggestedRoster(
        analyst=analyst,
        builder=2 if oversized >= 5 else 1,
        validator=min(1 + grown, MAX_VALIDATORS),
        integrator=min(1 + grown, MAX_INTEGRATORS),
    )


def suggest_roster(
    position: PipelinePosition,
    streams: int | WorkStreamResult | Sequence[WorkStream] | None = None,
) -> SuggestedRoster:
    """The position's roster, with builders raised to the number of independent work
    streams (at most :data:`MAX_BUILDERS`) when streams are known."""
    roster = roster_for(position.phase, position.issues)
    if streams is None:
        return roster
    if isinstance(streams, int):
        count = streams
    elif isinstance(streams, Sequence):
        count = len(streams)
    else:
        count = streams.total_streams
    builder = max(roster.builder, min(count, MAX_BUILDERS))
    return SuggestedRoster(
        analyst=roster.analyst,
        builder=builder,
        validator=roster.validator,
        integrator=roster.integrator,
    )
