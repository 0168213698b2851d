"""Semantic intents and state resolution (docs/compatibility.md), and planning a transition.

``resolve_state`` follows the original step by step, including its error texts (every
one says "Recovery"), so agents written for the original keep working.
``plan_transition`` adds what the original never checked: the transition matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ralph.errors import StateResolutionError
from ralph.workflow._commands import CommandContract, get_command, one_line
from ralph.workflow._states import WorkflowState, parse_state
from ralph.workflow._transitions import check_transition, is_allowed

__all__ = [
    "INTENTS",
    "Resolution",
    "Transition",
    "plan_release",
    "plan_transition",
    "resolve_state",
]

_S = WorkflowState
_ANY = "*"

#: intent -> command (or "*" for every command) -> state; None marks an intent that is
#: ambiguous for that command.
INTENTS: Mapping[str, Mapping[str, WorkflowState | None]] = {
    "__LOCK__": {
        "ralph_research": _S.RESEARCH_IN_PROGRESS,
        "ralph_plan": _S.PLAN_IN_PROGRESS,
        "ralph_impl": _S.IN_PROGRESS,
        "ralph_create_plan": _S.PLAN_IN_PROGRESS,
        "ralph_iterate_plan": _S.PLAN_IN_PROGRESS,
        "ralph_implement_plan": _S.IN_PROGRESS,
    },
    "__COMPLETE__": {
        "ralph_triage": None,
        "ralph_split": _S.BACKLOG,
        "ralph_research": _S.READY_FOR_PLAN,
        "ralph_plan": _S.PLAN_IN_REVIEW,
        "ralph_impl": _S.IN_REVIEW,
        "ralph_review": _S.IN_PROGRESS,
        "ralph_pr": _S.IN_REVIEW,
        "ralph_merge": _S.DONE,
        "ralph_create_plan": _S.PLAN_IN_REVIEW,
        "ralph_iterate_plan": _S.PLAN_IN_REVIEW,
        "ralph_implement_plan": _S.IN_REVIEW,
    },
    "__ESCALATE__": {_ANY: _S.HUMAN_NEEDED},
    "__CLOSE__": {_ANY: _S.DONE},
    "__CANCEL__": {_ANY: _S.CANCELED},
}

_INTENT_HELP = (
    "__LOCK__ (claim work), __COMPLETE__ (finish work), __ESCALATE__ (needs human), "
    "__CLOSE__ (mark done), __CANCEL__ (abandon)"
)


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """A requested state or intent, resolved for one command."""

    state: WorkflowState
    was_intent: bool
    requested: str
    command: str


@dataclass(frozen=True, kw_only=True)
class Transition:
    """A checked state change; ``changed`` is False when the issue is already there."""

    from_state: WorkflowState | None
    to_state: WorkflowState
    command: str
    was_intent: bool

    @property
    def changed(self) -> bool:
        return self.from_state != self.to_state


def _is_intent(value: str) -> bool:
    return value.startswith("__") and value.endswith("__")


def _listed(states: tuple[WorkflowState, ...]) -> str:
    return ", ".join(s.value for s in states)


def _resolve_intent(intent: str, contract: CommandContract) -> WorkflowState:
    command = contract.name
    mapping = INTENTS.get(intent)
    if mapping is None:
        raise StateResolutionError(
            f'Unknown semantic intent "{one_line(intent)}". Valid intents: {_INTENT_HELP}. '
            "Recovery: retry with one of the intents listed above, or a direct state name.",
            command=command,
            requested=intent,
        )
    if _ANY in mapping:
        # Wildcard intents resolve for every command without the allowed-states check
        # (the original's behaviour); the transition matrix still applies later.
        wildcard = mapping[_ANY]
        assert wildcard is not None
        return wildcard
    if command not in mapping:
        supporting = ", ".join(
            f"{name} → {state.value if state else 'ambiguous'}" for name, state in mapping.items()
        )
        raise StateResolutionError(
            f"Intent {intent} is not valid for {command}. Commands supporting {intent}: "
            f"{supporting}. Recovery: for {command}, use a direct state name instead: "
            f"{_listed(contract.allowed_states)}. Or use __ESCALATE__ to escalate to human.",
            command=command,
            requested=intent,
        )
    resolved = mapping[command]
    if resolved is None:
        raise StateResolutionError(
            f"Intent {intent} is ambiguous for {command} (multiple output paths). "
            f"Recovery: use a direct state name instead: {_listed(contract.allowed_states)}.",
            command=command,
            requested=intent,
        )
    return resolved


def _intents_reaching_allowed(contract: CommandContract) -> list[str]:
    found = []
    for intent, mapping in INTENTS.items():
        state = mapping.get(contract.name, mapping.get(_ANY))
        if state is not None and state in contract.allowed_states:
            found.append(f"{intent} → {state.value}")
    return found


def resolve_state(state_or_intent: str, command: str) -> Resolution:
    """Resolve a direct state name or a ``__INTENT__`` for ``command`` (bare or prefixed).

    Raises UnknownCommand or StateResolutionError; every message contains "Recovery".
    """
    contract = get_command(command)
    if _is_intent(state_or_intent):
        resolved = _resolve_intent(state_or_intent, contract)
        return Resolution(
            state=resolved, was_intent=True, requested=state_or_intent, command=contract.name
        )
    if state_or_intent not in contract.allowed_states:
        message = (
            f'State "{one_line(state_or_intent)}" is not a valid output for {contract.name}. '
            f"Valid direct states for {contract.name}: {_listed(contract.allowed_states)}. "
            "Recovery: retry with one of the valid states listed above."
        )
        intents = _intents_reaching_allowed(contract)
        if intents:
            message += f" Available semantic intents for {contract.name}: {', '.join(intents)}."
        raise StateResolutionError(message, command=contract.name, requested=state_or_intent)
    return Resolution(
        state=parse_state(state_or_intent),
        was_intent=False,
        requested=state_or_intent,
        command=contract.name,
    )


def plan_transition(current: str | None, state_or_intent: str, command: str) -> Transition:
    """Resolve the target for ``command`` and check the move from ``current`` against the
    transition matrix.

    ``current`` None means the issue has no workflow state yet; any state the command may
    set is a valid first placement. Asking for the state the issue is already in is a
    no-op (``changed`` is False), which lets a phase re-take a lock it already holds.
    """
    resolution = resolve_state(state_or_intent, command)
    from_state = parse_state(current) if current is not None else None
    if from_state is not None and from_state != resolution.state:
        check_transition(from_state, resolution.state, resolution.command)
    return Transition(
        from_state=from_state,
        to_state=resolution.state,
        command=resolution.command,
        was_intent=resolution.was_intent,
    )


def plan_release(current: str | None, command: str) -> Transition | None:
    """Undo ``command``'s lock: from its lock state back to the input state the lock is
    taken from (the move a failed phase makes, outside the forward matrix). None when
    there is nothing to undo: the issue is not in the lock state, or the lock state is
    itself an input state (implementation stays In Progress)."""
    contract = get_command(command)
    lock = contract.lock_state
    if lock is None or current != lock or lock in contract.input_states:
        return None
    origin = next(s for s in contract.input_states if is_allowed(s, lock, contract.name))
    return Transition(from_state=lock, to_state=origin, command=contract.name, was_intent=False)
