"""The workflows a person drives by hand: ``ralph research N --interactive`` /
``--done``, ``ralph plan N --interactive`` / ``--done``, ``ralph plan iterate N``,
``ralph review N --reject``, ``ralph implement N --interactive``. Each works without an
agent (a person writes the text) and refuses in one line when the issue is where the
workflow does not allow it; each says the next step by hand first."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from ralph._text import check_text
from ralph.cli._echo import say
from ralph.cli._exits import EXIT_FAILED
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import open_project_of
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.phases import PhaseOutcome, Progress

__all__ = [
    "implement_command",
    "plan_app",
    "read_text_file",
    "research_command",
    "review_command",
]

_WRITE = "write"


class _IssueFirst(TyperGroup):
    """``ralph plan N ...`` is ``ralph plan write N ...``: a group whose first word may
    be the issue number instead of a command."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = [_WRITE, *args]
        return super().resolve_command(ctx, args)


plan_app = typer.Typer(
    name="plan",
    cls=_IssueFirst,
    help="Write an issue's plan yourself (ralph plan N --interactive, then --done) or revise "
    "it (ralph plan iterate N). The agent's plan is ralph run plan N.",
    no_args_is_help=True,
)

Number = Annotated[int, issue_argument("Issue number.")]
FileOpt = Annotated[
    str | None,
    typer.Option(
        "--file",
        help="Take the plan from this file ('-': standard input) instead of the draft.",
        show_default=False,
    ),
]


def read_text_file(path: str, what: str) -> str:
    """A text a person points at (``-``: standard input), checked by ``check_text``."""
    if path == "-":
        return check_text(sys.stdin.read(), what)
    if "\x00" in path or not path.strip():
        raise InvalidInput(f"{what}: {path!r} is not a file name; give the file's path")
    file = Path(path)
    if not file.is_file():
        raise InvalidInput(f"{what}: {path} is not a file; give the path of the text")
    try:
        return check_text(file.read_text(), what)
    except UnicodeDecodeError:
        raise InvalidInput(f"{what}: {path} is not UTF-8 text") from None


def _print(outcome: PhaseOutcome) -> None:
    for line in outcome.lines:
        say(line)
    if not outcome.ok:
        say(f"result: {outcome.status.value}")
        raise typer.Exit(EXIT_FAILED)


@plan_app.command(_WRITE)
def plan_write(
    ctx: typer.Context,
    number: Number,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive",
            help="Make (or show) the working copy to edit, under .ralph/drafts/: a skeleton "
            "named as the plan will be, or the plan itself when it is to be revised.",
        ),
    ] = False,
    done: Annotated[
        bool,
        typer.Option(
            "--done",
            help="Submit the working copy (or --file) as the plan phase would an agent's plan: "
            "checked, committed, linked, the issues Plan in Review.",
        ),
    ] = False,
    file: FileOpt = None,
) -> None:
    """Write an issue's plan yourself: ralph plan N --interactive, edit it, then --done."""
    from ralph.phases import draft_plan, submit_plan

    # --done checks the plan as the plan phase checks an agent's: the group Ready for
    # Plan and researched, a phase per issue with Automated Verification boxes; and no
    # TODO(ralph) of the skeleton left.
    if interactive == done:
        raise InvalidInput(
            f"say --interactive (start the plan) or --done (submit it); "
            f"for the agent's plan: ralph run plan {number}"
        )
    if interactive and file is not None:
        raise InvalidInput("--file goes with --done; --interactive makes the working copy")
    text = read_text_file(file, "the plan") if file is not None else None
    with open_project_of(ctx, working=done) as project:
        if interactive:
            draft = draft_plan(project, number)
            made = "Made" if draft.created else "Kept"
            say(f"{made} the working copy of {draft.document}: {draft.path}")
            say(f"Edit it, {draft.next_step}")
            return
        outcome = submit_plan(project, number, text)
    _print(outcome)
    if outcome.ok:
        say(
            f"Next: ralph approve {number}, or ralph review {number} --reject REASON "
            f"(or the agent's review: ralph run review {number})"
        )


def research_command(
    ctx: typer.Context,
    number: Number,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive",
            help="Take the issue (Research in Progress; from Backlog through Research "
            "Needed) and make (or show) the working copy to edit, under .ralph/drafts/: a "
            "skeleton named as the research document will be.",
        ),
    ] = False,
    done: Annotated[
        bool,
        typer.Option(
            "--done",
            help="Submit the working copy (or --file) as the research phase would an agent's "
            "document: checked, committed, linked, the issue Ready for Plan.",
        ),
    ] = False,
    file: Annotated[
        str | None,
        typer.Option(
            "--file",
            help="Take the document from this file ('-': standard input) instead of the draft.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Research an issue yourself: ralph research N --interactive, edit it, then --done."""
    from ralph.phases import draft_research, submit_research

    if interactive == done:
        raise InvalidInput(
            f"say --interactive (start the research) or --done (submit it); "
            f"for the agent's research: ralph run research {number}"
        )
    if interactive and file is not None:
        raise InvalidInput("--file goes with --done; --interactive makes the working copy")
    text = read_text_file(file, "the research") if file is not None else None
    with open_project_of(ctx, working=True) as project:
        if interactive:
            draft = draft_research(project, number)
            for line in draft.said:
                say(line)
            made = "Made" if draft.created else "Kept"
            say(f"{made} the working copy of {draft.document}: {draft.path}")
            say(f"Edit it, {draft.next_step}")
            return
        outcome = submit_research(project, number, text)
    _print(outcome)
    if outcome.ok:
        say(f"Next: ralph plan {number} --interactive (by hand), or ralph run plan {number}")


@plan_app.command("iterate")
def plan_iterate(
    ctx: typer.Context,
    number: Number,
    feedback: Annotated[
        str | None,
        typer.Option(
            "--feedback",
            help="Why the plan changes ('-': standard input); posted with the changes. The "
            "new text is --file's, else the working copy ralph plan N --interactive made.",
            show_default=False,
        ),
    ] = None,
    file: FileOpt = None,
) -> None:
    """Revise a plan (Ready for Plan or in review) and post ## Plan Updated; back in review."""
    from ralph.phases import iterate_plan

    if feedback is None:
        raise InvalidInput(f"say why the plan changes: ralph plan iterate {number} --feedback TEXT")
    reason = check_text(sys.stdin.read() if feedback == "-" else feedback, "the feedback")
    text = read_text_file(file, "the plan") if file is not None else None
    with open_project_of(ctx, working=True) as project:
        path = iterate_plan(project, number, reason, text)
    say(f"Updated {path}; posted ## Plan Updated. Plan in Review: ralph approve {number}")


def review_command(
    ctx: typer.Context,
    number: Number,
    rejection: Annotated[
        str | None,
        typer.Option(
            "--reject",
            help="Why ('-': standard input), a line per point: posted as VERDICT: "
            "NEEDS_ITERATION, label needs-iteration. (ralph approve N passes the gate.)",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Reject the plan for an issue (a human gate): its issues go back to Ready for Plan."""
    from ralph.phases import reject

    if rejection is None:
        raise InvalidInput(
            f"say --reject REASON; to approve: ralph approve {number}; "
            f"for the agent's review: ralph run review {number}"
        )
    reason = check_text(sys.stdin.read() if rejection == "-" else rejection, "the reason")
    with open_project_of(ctx) as project:
        rejected = reject(project, number, reason)
    listed = ", ".join(f"#{i.number}" for i in rejected)
    say(
        f"Rejected the plan for {listed}: Ready for Plan, needs-iteration. "
        f"Next: ralph plan {number} --interactive, then ralph plan iterate {number}"
    )


def _show(step: Progress, number: int) -> None:
    for line in step.said:
        say(line)
    say(f"Worktree: {step.worktree} ({step.branch}); plan: {step.plan}")
    if step.phase is None:
        say(
            f"Every phase of the plan is done. Next: ralph run pr {number} (it opens the pull "
            f"request; no agent runs), then ralph run merge {number}"
        )
        return
    phase = step.phase
    say(f"Next: Phase {phase.number} of {step.total}: {phase.title}")
    say(phase.body.strip())
    if phase.manual:
        say("Check by hand before --step-done:")
        for box in phase.manual:
            say(f"  - {box.text}")
    say(f"When it is done: ralph implement {number} --interactive --step-done")


def implement_command(
    ctx: typer.Context,
    number: Number,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive",
            help="Show the next plan phase (the first time: make the worktree, post ## "
            "Implementation Started).",
        ),
    ] = False,
    step_is_done: Annotated[
        bool,
        typer.Option(
            "--step-done",
            help="The current phase is done and checked by hand: run the tests, tick it, "
            "commit the worktree.",
        ),
    ] = False,
) -> None:
    """Implement an issue yourself in its worktree, one plan phase at a time."""
    from ralph.phases import AlreadyDone, next_step, step_done

    if not interactive:
        raise InvalidInput(
            f"say --interactive to implement it yourself; "
            f"for the agent's implementation: ralph run implement {number}"
        )
    with open_project_of(ctx, working=True) as project:
        try:
            if not step_is_done:
                _show(next_step(project, number), number)
                return
            done = step_done(project, number)
        except AlreadyDone as finished:
            say(str(finished))
            return
    if done.commit is None:
        say(f"Phase {done.phase.number}: the tests fail (`{done.tests.command}`):")
        say(done.tests.tail)
        raise typer.Exit(EXIT_FAILED)
    say(
        f"Phase {done.phase.number} done: tests pass, Automated Verification ticked, "
        f"committed {done.commit[:7]}."
    )
    unchecked = [box.text for box in done.phase.manual if not box.checked]
    if unchecked:  # a person's checks: never ticked for them
        say(f"Manual Verification, yours to check (left unticked in {done.step.plan}):")
        for text in unchecked:
            say(f"  - {text}")
    _show(done.step, number)
