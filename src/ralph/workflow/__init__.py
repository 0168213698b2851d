"""The workflow state machine: states, the enforced transition matrix, command contracts,
semantic intents and the table of phases. Pure: no I/O."""

from __future__ import annotations

from ralph.errors import InvalidTransition
from ralph.workflow._audit import (
    TransitionRecord,
    audit_comment,
    parse_all_transitions,
    parse_audit_comments,
    parse_transition_comments,
    transition_marker,
)
from ralph.workflow._commands import COMMANDS, CommandContract, get_command, normalize_command
from ralph.workflow._gates import ParentDecision, child_skip_reason, parent_decision
from ralph.workflow._phases import PHASE_SPECS, TASK_SPECS, PhaseSpec, find_phase
from ralph.workflow._resolution import (
    INTENTS,
    Resolution,
    Transition,
    plan_release,
    plan_transition,
    resolve_state,
)
from ralph.workflow._states import (
    HUMAN_STATES,
    LOCK_STATES,
    OVERSIZED_ESTIMATES,
    PARENT_GATE_STATES,
    STATE_ORDER,
    TERMINAL_STATES,
    WORKFLOW_STATE_TO_STATUS,
    Estimate,
    Priority,
    WorkflowState,
    is_earlier_state,
    parse_estimate,
    parse_priority,
    parse_state,
    state_index,
)
from ralph.workflow._sync import SYNC_COMMAND, synced_state
from ralph.workflow._transitions import (
    ALLOWED_TRANSITIONS,
    allowed_targets,
    check_transition,
    is_allowed,
)

__all__ = [
    "ALLOWED_TRANSITIONS",
    "COMMANDS",
    "HUMAN_STATES",
    "INTENTS",
    "LOCK_STATES",
    "OVERSIZED_ESTIMATES",
    "PARENT_GATE_STATES",
    "PHASE_SPECS",
    "STATE_ORDER",
    "SYNC_COMMAND",
    "TASK_SPECS",
    "TERMINAL_STATES",
    "WORKFLOW_STATE_TO_STATUS",
    "CommandContract",
    "Estimate",
    "InvalidTransition",
    "ParentDecision",
    "PhaseSpec",
    "Priority",
    "Resolution",
    "Transition",
    "TransitionRecord",
    "WorkflowState",
    "allowed_targets",
    "audit_comment",
    "check_transition",
    "child_skip_reason",
    "find_phase",
    "get_command",
    "is_allowed",
    "is_earlier_state",
    "normalize_command",
    "parent_decision",
    "parse_all_transitions",
    "parse_audit_comments",
    "parse_estimate",
    "parse_priority",
    "parse_state",
    "parse_transition_comments",
    "plan_release",
    "plan_transition",
    "resolve_state",
    "state_index",
    "synced_state",
    "transition_marker",
]
