"""A phase, declared: who runs it, what it accepts, how it briefs the agent, how it
checks and applies the result. The runner (``_runner``) owns the order of the steps."""

from __future__ import annotations

import abc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.graph import Role
from ralph.phases._context import PhaseContext
from ralph.phases._prompts import fill_prompt
from ralph.runtimes import AgentResult, Document, Feedback
from ralph.tracker import Issue
from ralph.workflow import CommandContract, Estimate, PhaseSpec, WorkflowState, find_phase

__all__ = [
    "AlreadyDone",
    "Attempt",
    "Busy",
    "FeedbackToAddress",
    "Impasse",
    "NeedsHuman",
    "Phase",
    "PhaseRefused",
    "ProviderLimited",
    "Waiting",
    "Workspace",
    "prompt",
    "test_phrases",
]


class PhaseRefused(RalphError):
    """A precondition does not hold; the message names it and what to run first."""

    #: False when waiting cannot change the answer (only a person can): an orchestrated
    #: task refused this way ends at once instead of being tried again.
    retryable: bool = True


class Busy(PhaseRefused):
    """Another run holds the issue: waiting is the answer, however many tries it takes,
    and the issue is never escalated for it (that run is working on it)."""


class Impasse(PhaseRefused):
    """A refusal only a person can lift (the message says how): never retried."""

    retryable = False


class NeedsHuman(RalphError):
    """Only a person can go on: the phase escalates (Human Needed + ``Escalation:``)."""

    #: False when another way through the pipeline (a fast track's full one) cannot
    #: help either: it escalates at once.
    falls_back: bool = True


class Waiting(RalphError):
    """Not ready yet, and nothing is wrong: the phase waits for something outside Ralph
    (checks to finish, a review, a person's merge) and is to look again later. Waiting
    is not failing: no attempt is spent, nothing escalates, the issues stay where they
    are, and an orchestrated task goes back to the store with a wake-up time, freeing
    its worker.

    ``reason`` is what it waits for, as people read it after "waiting for: "
    ("checks (2 pending)", "review"); ``for_person`` says whether only a person can end
    the wait (a review, a merge by hand) or it ends by itself (checks running);
    ``detail`` adds what the host said, if anything."""

    def __init__(self, reason: str, *, for_person: bool, detail: str = "") -> None:
        self.reason = reason
        self.for_person = for_person
        self.detail = detail
        super().__init__(f"waiting for: {reason}" + (f" ({detail})" if detail else ""))


class ProviderLimited(Waiting):
    """The agent's provider refuses for now (a 429, an overload, a usage window): its
    work waits until ``until`` (epoch seconds; 0 when the provider did not say, and the
    caller backs off), no attempt is spent, and other agents carry on. ``agent`` is the
    agent CLI's name (``claude``, ``codex``, ...); ``said`` what the provider said."""

    def __init__(self, agent: str, until: float, said: str = "") -> None:
        self.agent = agent
        self.until = until
        self.said = said
        super().__init__(f"the provider of {agent}", for_person=False, detail=said)


class FeedbackToAddress(RalphError):
    """The pull request has feedback the builder is to address first (a failed required
    check, a change request, review threads): the merge ends for an address round."""

    def __init__(self, number: int, reasons: Sequence[str]) -> None:
        self.number = number
        self.reasons = tuple(reasons)
        super().__init__(f"pull request #{number} has feedback to address: {'; '.join(reasons)}")


class AlreadyDone(RalphError):
    """The phase has already succeeded for this issue; rerunning it changes nothing."""


@dataclass
class Workspace:
    """Where the agent works, what it must write there, and what the phase passes on."""

    workdir: Path
    #: name -> path relative to ``workdir``.
    outputs: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    #: Files besides the outputs the agent may change (None: anything in ``workdir``).
    may_change: Sequence[str] | None = ()


@dataclass(frozen=True)
class Attempt:
    """What one agent run produced, once validated: the result and the output files."""

    result: Mapping[str, Any]
    files: Mapping[str, str]

    def to_checkpoint(self) -> dict[str, Any]:
        return {"result": dict(self.result), "files": dict(self.files)}

    @classmethod
    def from_checkpoint(cls, data: Mapping[str, Any]) -> Attempt:
        return cls(data.get("result", {}), data.get("files", {}))


def test_phrases(command: str) -> dict[str, str]:
    """How prompts speak of the project's tests (``$run_tests``, ``$tests_check``,
    ``$tests_gate``): never as an empty command, and saying what having none means."""
    if command.strip():
        return {
            "test_command": command,
            "run_tests": f"Run the project's tests (`{command}`); they must pass.",
            "tests_check": f"Tests pass: `{command}`",
            "tests_gate": f"Then it runs `{command}` in the worktree: the tests must pass.",
        }
    return {
        "test_command": "(none)",
        "run_tests": (
            "Check the phase's Automated Verification yourself: this project has no test "
            "command, so nothing runs its tests for you and Ralph will not either."
        ),
        "tests_check": (
            "<a command or check that proves this phase works (the project has no test "
            "command, so name one)>"
        ),
        "tests_gate": (
            "It runs no tests: the project has no test command, so your own checks are all "
            "there is."
        ),
    }


def prompt(name: str, **values: str) -> str:
    """The phase's packaged prompt template (package data, readable by people) filled in."""
    return fill_prompt(name, values, None)


class Phase(abc.ABC):
    """A phase's code. What is data about it (command, role, tools, whether an agent
    runs) is its record in ``ralph.workflow.PHASE_SPECS``, found by ``name``."""

    name: str
    spec: PhaseSpec
    #: The JSON schema of the agent's structured result.
    result_schema: Mapping[str, Any] = {}
    #: The agent gets the reviewer's critique when the last verdict asked for another
    #: plan (a re-plan), as Ralph's own context rather than a tracker comment.
    reads_critique: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = find_phase(cls.name)
        if spec is None or spec.name != cls.name:
            raise TypeError(f"{cls.__name__}: no phase {cls.name!r} in the table of phases")
        cls.spec = spec

    @property
    def command(self) -> str:
        return self.spec.command

    @property
    def role(self) -> Role:
        return Role(self.spec.role)

    @property
    def tools(self) -> tuple[str, ...]:
        return self.spec.tools

    @property
    def uses_agent(self) -> bool:
        return self.spec.uses_agent

    @property
    def contract(self) -> CommandContract:
        return self.spec.contract

    @property
    def lock_state(self) -> WorkflowState | None:
        return self.contract.lock_state

    # -- steps, in the runner's order ---------------------------------------------------

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        """The issues this run covers; the first is the primary."""
        return [issue]

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        """Raise AlreadyDone or PhaseRefused. The default checks the command contract:
        input (or, when resuming, lock) state and estimate."""
        for issue in members:
            self.check_state(issue)
            self.check_estimate(issue)

    def part_applied(self, members: Sequence[Issue]) -> bool:
        """Whether the group looks like an apply cut short (a killed run): some members
        moved on to where this phase puts them, the others still where it takes them
        from; nothing else (Human Needed, a later phase) is there."""
        contract = self.contract
        before = {*contract.input_states, contract.lock_state}
        after = set(contract.output_states) - before - {WorkflowState.HUMAN_NEEDED}
        states = {issue.workflow_state for issue in members}
        return bool(states & before) and bool(states & after) and states <= before | after

    def check_state(self, issue: Issue) -> None:
        state = issue.workflow_state
        if state is WorkflowState.HUMAN_NEEDED:  # no wait lifts it: only a person can
            raise Impasse(
                f"#{issue.number} is Human Needed: a person has to resolve its escalation and "
                f"move it back (ralph issue move {issue.number} STATE) before {self.name} runs"
            )
        accepted = self.contract.input_states
        if state in accepted or (state is not None and state == self.lock_state):
            return
        raise PhaseRefused(
            f"{self.name} takes issues in {' or '.join(s.value for s in accepted)}; "
            f"#{issue.number} is {state.value if state else 'not on the board'}"
        )

    def check_estimate(self, issue: Issue) -> None:
        if issue.estimate is None or self.contract.accepts_estimate(issue.estimate):
            return
        if issue.estimate in (Estimate.M, Estimate.L, Estimate.XL):
            raise PhaseRefused(
                f"#{issue.number} is estimated {issue.estimate.value}: split it first "
                f"(ralph run split {issue.number})"
            )
        raise PhaseRefused(f"#{issue.number} has estimate {issue.estimate.value}")

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        """A throwaway checkout of the base branch: the agent reads the code there and
        writes only its outputs."""
        label = f"{self.name}-GH-{members[0].number}"
        with ctx.worktrees.scratch(label, ctx.base) as path:
            yield Workspace(path, facts={"date": ctx.day.isoformat()})

    def prompt_values(self, ctx: PhaseContext, members: Sequence[Issue]) -> dict[str, str]:
        """What the prompt says of the issues, before a workspace adds its own values."""
        numbers = ", ".join(f"#{i.number}" for i in members)
        # Issues by number only: a title is someone else's text, and the brief shows it
        # in the fenced block of untrusted text, never among the instructions.
        return {
            "issue": f"#{members[0].number}",
            "issues": numbers,
            "subject": f"issue {numbers}" if len(members) == 1 else f"issues {numbers}",
            "date": ctx.day.isoformat(),
        }

    def instructions(self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace) -> str:
        """The phase's prompt (the project's override, if it has one) filled in."""
        values = {**self.prompt_values(ctx, members), **space.outputs, **space.facts}
        if "test_command" in space.facts:
            values |= test_phrases(space.facts["test_command"])
        return fill_prompt(self.name, values, ctx.prompt_override)

    def trusted_documents(
        self, ctx: PhaseContext, members: Sequence[Issue]
    ) -> tuple[Document, ...]:
        """Documents Ralph wrote for this task, briefed apart from the issues' text."""
        if not self.reads_critique:
            return ()
        found = (ctx.critique(issue) for issue in members)
        return tuple(dict.fromkeys(d for d in found if d is not None))

    def feedback(self, ctx: PhaseContext, members: Sequence[Issue]) -> tuple[Feedback, ...]:
        """What reviewers and checks said of the pull request, for a phase that addresses
        it (untrusted text, briefed as such)."""
        return ()

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        """What is wrong with the result and the files the agent wrote (beyond the schema,
        which the runner checks)."""
        return []

    @abc.abstractmethod
    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        """Persist, comment and move states. Every step must be idempotent: a rerun after
        a crash at any point repeats nothing that was done."""

    def fall_back(self, ctx: PhaseContext, members: Sequence[Issue], why: str) -> bool:
        """Instead of escalating ``why``: send the issues somewhere else in the pipeline
        and say so (True), or not (False: they escalate). Only a fast-tracked
        implementation falls back (to the full pipeline, once)."""
        return False
