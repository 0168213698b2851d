"""``ralph pr ...``: a person's side of pull requests on the project's code host: list and
show them with their checks, reviews and threads; review, check and merge them."""

from __future__ import annotations

import json
from datetime import date
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._console import Console
from ralph.cli._echo import echo, say
from ralph.cli._exits import EXIT_FAILED
from ralph.cli._pr_render import render_checks, render_pull_request, render_pull_request_list
from ralph.cli._project import open_project_of
from ralph.errors import InvalidInput, IssueNotFound
from ralph.tracker import MergeStrategy, PullRequestState

if TYPE_CHECKING:
    from ralph.project import Project

__all__ = ["pr_app"]

pr_app = typer.Typer(
    name="pr",
    help="Pull requests: their checks, reviews and threads; review, check and merge them.",
    no_args_is_help=True,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
Number = Annotated[int, typer.Argument(help="Pull request number.", show_default=False)]


def _wake_merges(project: Project, number: int) -> None:
    """A person's review or a check that ran may be what a waiting merge of this pull
    request waits for: a running Ralph (``--wait``, ``ralph serve``) looks again now
    rather than at the end of its backoff."""
    from ralph.orchestrate import wake_waiting

    issues = project.code_host.get_pull_request(number).closes
    if issues:
        wake_waiting(project.store, issues=issues)


@pr_app.command("list")
def pr_list(
    ctx: typer.Context,
    state: Annotated[
        PullRequestState, typer.Option("--state", "-s", help="Which pull requests.")
    ] = PullRequestState.OPEN,
    as_json: JsonOpt = False,
) -> None:
    """Pull requests, oldest first, with their checks, review decision and merge state."""
    from ralph.views import pull_request_dict

    with open_project_of(ctx) as project:
        prs = project.code_host.list_pull_requests(state=state)
    if as_json:
        echo(json.dumps([pull_request_dict(pr, full=False) for pr in prs], indent=2))
    else:
        Console().print(render_pull_request_list(prs))


@pr_app.command("show")
def pr_show(ctx: typer.Context, number: Number, as_json: JsonOpt = False) -> None:
    """One pull request: its branch and head commit, checks, reviews, threads with their
    comments, merge state, review decision and the issues it closes."""
    from ralph.views import pull_request_dict

    with open_project_of(ctx) as project:
        pr = project.code_host.get_pull_request(number)
        closes = {}
        for issue in pr.closes:
            try:
                closes[issue] = project.tracker.get_issue(issue)
            except IssueNotFound:
                continue
    if as_json:
        echo(json.dumps(pull_request_dict(pr), indent=2))
    else:
        Console().print(render_pull_request(pr, closes))


@pr_app.command("review")
def pr_review(
    ctx: typer.Context,
    number: Number,
    approve: Annotated[bool, typer.Option("--approve", help="Approve it.")] = False,
    request_changes: Annotated[
        str | None,
        typer.Option(
            "--request-changes", help="Ask for changes, saying which.", show_default=False
        ),
    ] = None,
    comment: Annotated[
        str | None, typer.Option("--comment", help="Comment without a verdict.", show_default=False)
    ] = None,
    file: Annotated[
        str | None,
        typer.Option(
            "--file", help="With --line: a file the pull request changes.", show_default=False
        ),
    ] = None,
    line: Annotated[
        int | None,
        typer.Option(
            "--line", help="With --file: the line (of the new file) to discuss.", show_default=False
        ),
    ] = None,
) -> None:
    """Review a pull request yourself: exactly one of --approve, --request-changes TEXT
    or --comment TEXT; --file PATH --line N puts the text on that line, opening a thread.
    The review is by your git user.name."""
    from ralph.phases import review_by_hand
    from ralph.tracker import ReviewEvent

    given = [
        (flag, value)
        for flag, value in (
            ("--approve", approve or None),
            ("--request-changes", request_changes),
            ("--comment", comment),
        )
        if value is not None
    ]
    if len(given) != 1:
        named = " and ".join(flag for flag, _ in given)
        raise InvalidInput(
            "give exactly one of --approve, --request-changes TEXT, --comment TEXT"
            + (f" (not {named})" if named else "")
        )
    if line is not None and not 1 <= line <= MAX_COUNT:
        raise InvalidInput(f"--line {line} is not a line; lines start at 1")
    event = (
        ReviewEvent.APPROVE
        if approve
        else ReviewEvent.REQUEST_CHANGES
        if request_changes is not None
        else ReviewEvent.COMMENT
    )
    text = request_changes if request_changes is not None else comment or ""
    with open_project_of(ctx) as project:
        review = review_by_hand(project, number, event, text, path=file, line=line)
        _wake_merges(project, number)
    done = {
        ReviewEvent.APPROVE: "Approved",
        ReviewEvent.REQUEST_CHANGES: "Requested changes on",
        ReviewEvent.COMMENT: "Commented on",
    }[event]
    where = f" ({file}:{line}, a new thread)" if file is not None else ""
    say(f"{done} pull request #{number}{where} as {review.author}.")


@pr_app.command("checks")
def pr_checks(ctx: typer.Context, number: Number) -> None:
    """The required check of a pull request: on the local code host, the project's
    test_command run on what it would merge, recorded on its head commit (run now unless
    it already ran on this head); on GitHub, its CI's checks. Exit 1 when a required
    check failed."""
    from ralph.phases import PhaseContext, required_check_of, run_required_check

    with open_project_of(ctx) as project:
        pr = project.code_host.get_pull_request(number)
        config = project.config
        local = project.code_host.runs_own_checks
        if local and not config.test_command.strip():
            say("No required check: test_command is empty in ralph.toml.")
        elif local and pr.state is PullRequestState.OPEN and required_check_of(pr) is None:
            say(
                f"Running `{config.test_command}` on {pr.head} ({(pr.head_oid or '')[:7]}) "
                f"merged into {pr.base} ..."
            )
            ran = run_required_check(PhaseContext(project, date.today()), number)
            if not ran.recorded:
                say(
                    f"{pr.head} moved while the tests ran: the {ran.check.conclusion} of "
                    f"{ran.head_oid[:7]} was not recorded; run ralph pr checks {number} again."
                )
        pr = project.code_host.get_pull_request(number)
        _wake_merges(project, number)
    Console().print(render_checks(pr))
    if any(check.required and check.failed for check in pr.checks):
        raise typer.Exit(EXIT_FAILED)


@pr_app.command("merge")
def pr_merge(
    ctx: typer.Context,
    number: Number,
    method: Annotated[
        MergeStrategy | None,
        typer.Option(
            "--method",
            help="merge, squash or rebase (default: the first allowed).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Merge a pull request yourself, then let Ralph finish its issues' pipeline as its
    merge phase would: issues Done, parents advanced, the worktree removed."""
    from ralph.phases import PhaseContext, merge_by_hand

    with open_project_of(ctx, working=True) as project:
        pr_ctx = PhaseContext(project, date.today())
        merged = merge_by_hand(pr_ctx, number, method)
    if merged.state is PullRequestState.OPEN:
        say(f"Pull request #{number} joined the merge queue; Ralph finishes it once it merges.")
        return
    for line in pr_ctx.said:
        say(line)
