"""The phases: triage, split, research, plan, review, implement, pr and merge.

A phase is code around at most one agent call. The runner does every mechanical step
(preflight, locks, context, validation, documents, comments, state moves) and the agent
only produces content.
"""

from __future__ import annotations

from ralph.phases._context import PhaseContext
from ralph.phases._ownership import ForeignBranch, adopt_branch
from ralph.phases._phase import AlreadyDone, NeedsHuman, Phase, PhaseRefused
from ralph.phases._registry import PHASES, get_phase
from ralph.phases._review import approve
from ralph.phases._runner import PhaseOutcome, PhaseRunner, PhaseStatus

__all__ = [
    "PHASES",
    "AlreadyDone",
    "ForeignBranch",
    "NeedsHuman",
    "Phase",
    "PhaseContext",
    "PhaseOutcome",
    "PhaseRefused",
    "PhaseRunner",
    "PhaseStatus",
    "adopt_branch",
    "approve",
    "get_phase",
]
