"""``ralph sync issue N`` and ``ralph sync pr N``: what a person did outside Ralph (an
issue closed or reopened, a pull request merged) brought into the workflow, thin over
:mod:`ralph.phases` (the GitHub Actions ``ralph init --github --actions`` writes run them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._console import Console
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import open_project_of

if TYPE_CHECKING:
    from ralph.phases import Synced

__all__ = ["sync_app"]

sync_app = typer.Typer(
    name="sync",
    help="Bring what people did outside Ralph into the workflow: an issue closed "
    "(Done or Canceled) or reopened (Backlog), a pull request merged (its issues Done, "
    "the parent advanced, the worktree pruned). Safe to run again.",
    no_args_is_help=True,
)

Number = Annotated[int, typer.Argument(min=1, max=MAX_COUNT, help="Its number.")]


def _report(synced: Synced) -> None:
    console = Console(highlight=False, soft_wrap=True)
    for line in synced.lines:
        console.print(line, markup=False)


@sync_app.command("issue")
def sync_issue_command(
    ctx: typer.Context, number: Annotated[int, issue_argument("Its number.")]
) -> None:
    """Issue N closed as completed -> Done, closed as not planned or duplicate ->
    Canceled, reopened -> Backlog (with the audit comment); closed by a merged pull
    request -> that merge finished, as ralph sync pr does."""
    from ralph.phases import sync_issue

    with open_project_of(ctx, working=True) as project:
        _report(sync_issue(project, number))


@sync_app.command("pr")
def sync_pr_command(ctx: typer.Context, number: Number) -> None:
    """Pull request N merged by a person: the issues it closes Done (with the audit
    comment), their parent advanced, the worktree pruned; open or closed unmerged:
    nothing to do."""
    from ralph.phases import sync_pull_request

    with open_project_of(ctx, working=True) as project:
        _report(sync_pull_request(project, number))
