"""Command contracts: which states a command starts from, locks and may produce.

The eight autonomous commands follow the original's contracts (docs/compatibility.md);
``ralph_code_review`` and ``ralph_address`` are Ralph's own (the original addressed
review feedback inside ``ralph_impl``).
Three interactive commands that the original rejected by mistake (``create_plan``,
``iterate_plan``, ``implement_plan``) and ``human`` (a person editing the board; the
original's justfile called it ``cli``) are real commands here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ralph.errors import UnknownCommand
from ralph.workflow._states import Estimate, WorkflowState

__all__ = ["COMMANDS", "CommandContract", "get_command", "normalize_command"]

_S = WorkflowState
_SMALL = (Estimate.XS, Estimate.S)


@dataclass(frozen=True, kw_only=True)
class CommandContract:
    """What one command may do to an issue's workflow state."""

    name: str
    input_states: tuple[WorkflowState, ...]
    output_states: tuple[WorkflowState, ...]
    lock_state: WorkflowState | None = None
    #: None means any estimate (or none) is accepted.
    input_estimates: tuple[Estimate, ...] | None = None
    #: Artifacts that must exist before the command runs ("research", "plan").
    requires_artifacts: tuple[str, ...] = ()
    #: Artifacts the command creates; one must not already exist for the issue.
    produces_artifacts: tuple[str, ...] = ()
    #: States the command may set directly: its lock state, then its outputs.
    allowed_states: tuple[WorkflowState, ...] = field(init=False)

    def __post_init__(self) -> None:
        lock = (self.lock_state,) if self.lock_state is not None else ()
        ordered = dict.fromkeys((*lock, *self.output_states))
        object.__setattr__(self, "allowed_states", tuple(ordered))

    @property
    def short_name(self) -> str:
        """The name without the ``ralph_`` prefix (``research``)."""
        return self.name.removeprefix("ralph_")

    def accepts_state(self, state: str | None) -> bool:
        return state in self.input_states

    def accepts_estimate(self, estimate: str | None) -> bool:
        return self.input_estimates is None or estimate in self.input_estimates


def _contracts(*contracts: CommandContract) -> dict[str, CommandContract]:
    return {c.name: c for c in contracts}


_ALL_STATES = tuple(WorkflowState)

COMMANDS: Mapping[str, CommandContract] = _contracts(
    CommandContract(
        name="ralph_triage",
        input_states=(_S.BACKLOG,),
        output_states=(
            _S.RESEARCH_NEEDED,
            _S.READY_FOR_PLAN,
            _S.DONE,
            _S.CANCELED,
            _S.HUMAN_NEEDED,
            # The XS fast track: Ralph wrote the plan, implementation goes next.
            _S.IN_PROGRESS,
        ),
    ),
    CommandContract(
        name="ralph_split",
        input_states=(_S.BACKLOG, _S.RESEARCH_NEEDED),
        # The original allowed only Backlog, so split could never place the sub-issues it
        # created; Research Needed and Ready for Plan are where new sub-issues go.
        output_states=(_S.BACKLOG, _S.RESEARCH_NEEDED, _S.READY_FOR_PLAN),
        input_estimates=(Estimate.M, Estimate.L, Estimate.XL),
    ),
    CommandContract(
        name="ralph_research",
        input_states=(_S.RESEARCH_NEEDED,),
        output_states=(_S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
        lock_state=_S.RESEARCH_IN_PROGRESS,
        input_estimates=_SMALL,
        produces_artifacts=("research",),
    ),
    CommandContract(
        name="ralph_plan",
        input_states=(_S.READY_FOR_PLAN,),
        output_states=(_S.PLAN_IN_REVIEW, _S.HUMAN_NEEDED),
        lock_state=_S.PLAN_IN_PROGRESS,
        input_estimates=_SMALL,
        requires_artifacts=("research",),
        produces_artifacts=("plan",),
    ),
    CommandContract(
        name="ralph_review",
        input_states=(_S.PLAN_IN_REVIEW,),
        output_states=(_S.IN_PROGRESS, _S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
        input_estimates=_SMALL,
        requires_artifacts=("plan",),
        produces_artifacts=("critique",),
    ),
    CommandContract(
        name="ralph_impl",
        input_states=(_S.PLAN_IN_REVIEW, _S.IN_PROGRESS),
        # Research Needed: a fast-tracked issue whose implementation failed goes through
        # the full pipeline once.
        output_states=(_S.IN_PROGRESS, _S.IN_REVIEW, _S.HUMAN_NEEDED, _S.RESEARCH_NEEDED),
        lock_state=_S.IN_PROGRESS,
        input_estimates=_SMALL,
        requires_artifacts=("plan",),
    ),
    CommandContract(
        name="ralph_hero",
        input_states=(
            _S.BACKLOG,
            _S.RESEARCH_NEEDED,
            _S.READY_FOR_PLAN,
            _S.PLAN_IN_REVIEW,
            _S.IN_PROGRESS,
        ),
        output_states=(_S.IN_REVIEW, _S.HUMAN_NEEDED),
    ),
    CommandContract(
        # Ours: the original's ralph_impl opened the PR itself; here implementation and
        # the pull request are separate phases, so In Review belongs to this command.
        name="ralph_pr",
        input_states=(_S.IN_PROGRESS,),
        output_states=(_S.IN_REVIEW, _S.HUMAN_NEEDED),
        input_estimates=_SMALL,
    ),
    CommandContract(
        # Ours: a validator reviews the pull request's code; the issues stay In Review.
        name="ralph_code_review",
        input_states=(_S.IN_REVIEW,),
        output_states=(_S.IN_REVIEW, _S.HUMAN_NEEDED),
    ),
    CommandContract(
        # The original's ralph_impl in address mode ("state stays In Review").
        name="ralph_address",
        input_states=(_S.IN_REVIEW,),
        output_states=(_S.IN_REVIEW, _S.HUMAN_NEEDED),
    ),
    CommandContract(
        name="ralph_merge",
        input_states=(_S.IN_REVIEW,),
        output_states=(_S.DONE, _S.HUMAN_NEEDED),
    ),
    CommandContract(
        name="ralph_create_plan",
        input_states=(_S.BACKLOG, _S.RESEARCH_NEEDED, _S.READY_FOR_PLAN),
        output_states=(_S.PLAN_IN_REVIEW, _S.HUMAN_NEEDED),
        lock_state=_S.PLAN_IN_PROGRESS,
        produces_artifacts=("plan",),
    ),
    CommandContract(
        name="ralph_iterate_plan",
        input_states=(_S.PLAN_IN_REVIEW, _S.READY_FOR_PLAN),
        # Plan in Review -> Plan in Progress is not in the matrix; iterating a plan under
        # review goes back through Ready for Plan first.
        output_states=(_S.PLAN_IN_REVIEW, _S.READY_FOR_PLAN, _S.HUMAN_NEEDED),
        lock_state=_S.PLAN_IN_PROGRESS,
        requires_artifacts=("plan",),
    ),
    CommandContract(
        name="ralph_implement_plan",
        input_states=(_S.PLAN_IN_REVIEW, _S.IN_PROGRESS),
        output_states=(_S.IN_PROGRESS, _S.IN_REVIEW, _S.HUMAN_NEEDED),
        lock_state=_S.IN_PROGRESS,
        requires_artifacts=("plan",),
    ),
    CommandContract(
        name="ralph_human",
        input_states=_ALL_STATES,
        output_states=_ALL_STATES,
    ),
)

#: Other names accepted for a command (after the ``ralph_`` prefix is added).
_ALIASES: Mapping[str, str] = {"ralph_cli": "ralph_human"}


def one_line(raw: str) -> str:
    """``raw`` as a refusal quotes it: a stray line break or other control character in
    what a person typed would break the one-line refusal."""
    return "".join(c if c.isprintable() else " " for c in raw)


def normalize_command(raw: str) -> str:
    """``research`` and ``ralph_research`` both name ``ralph_research``."""
    name = raw if raw.startswith("ralph_") else f"ralph_{raw}"
    return _ALIASES.get(name, name)


def get_command(raw: str) -> CommandContract:
    """The contract for ``raw`` (bare or prefixed), or UnknownCommand with a Recovery hint."""
    contract = COMMANDS.get(normalize_command(raw))
    if contract is None:
        valid = list(COMMANDS)
        raw = one_line(raw)
        raise UnknownCommand(
            f'Unknown command "{raw}". Valid commands: {", ".join(valid)}. '
            "Recovery: retry with the correct ralph_* command name. "
            f'If you passed a bare name like "{raw}", use "ralph_{raw}".',
            raw,
            valid,
        )
    return contract
