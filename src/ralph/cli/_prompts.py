"""``ralph prompts show PHASE [N]``: the prompt a phase's agent gets in this project."""

from __future__ import annotations

from typing import Annotated

import typer

from ralph.cli._console import Console
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import open_project_of

__all__ = ["prompts_app"]

prompts_app = typer.Typer(
    name="prompts",
    help="The prompts phases give their agents: packaged, or the project's own "
    "(prompts_dir in ralph.toml, .ralph/prompts/PHASE.md by default).",
    no_args_is_help=True,
)


@prompts_app.command("show")
def show_command(
    ctx: typer.Context,
    phase: Annotated[
        str, typer.Argument(help="A phase whose agent gets a prompt.", show_default=False)
    ],
    number: Annotated[
        int | None,
        issue_argument("Fill it in for this issue."),
    ] = None,
) -> None:
    """Print the effective prompt of a phase: the project's override (checked, as a run
    checks it) or the packaged one, filled in for issue N when given. What only a run
    decides (a document's path, the worktree) is shown as its $variable."""
    from ralph.phases import effective_prompt, prompted_phase

    name = prompted_phase(phase)
    with open_project_of(ctx) as project:
        text = effective_prompt(project.config, name, project, number)
    Console(highlight=False, soft_wrap=True).print(text.rstrip("\n"), markup=False)
