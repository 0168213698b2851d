"""``ralph issue ...``: the board in the terminal, over whichever tracker ralph.toml names."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ralph._text import check_text, check_title
from ralph.cli._bounds import MAX_COUNT
from ralph.cli._echo import echo, say, styled
from ralph.cli._issue_ref import issue_argument, issue_option
from ralph.cli._project import open_project_of, project_tracker
from ralph.errors import InvalidInput
from ralph.tracker import CloseReason, IssueOrder
from ralph.workflow import parse_estimate, parse_priority, parse_state

if TYPE_CHECKING:
    from ralph.tracker import Issue

__all__ = ["issue_app"]

issue_app = typer.Typer(name="issue", help="Issues on the project's tracker.", no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
Number = Annotated[int, issue_argument("Issue number.")]
BodyOpt = Annotated[
    str | None, typer.Option("--body", "-b", help="The description ('-' reads stdin).")
]
BodyFileOpt = Annotated[
    str | None,
    typer.Option("--body-file", "-F", help="Read the description from a file ('-': stdin)."),
]


#: The issues ``ralph issue list`` shows unless told, a terminal's screenful, as ``gh
#: issue list`` and ``glab issue list`` show: a board of 10,000 is read in a tenth of a
#: second, and a terminal's table costs some 0.7 ms a row.
LIST_LIMIT = 30


@issue_app.command("new")
def issue_new(
    ctx: typer.Context,
    title: Annotated[str, typer.Argument(help="The issue's title.")],
    body: BodyOpt = None,
    body_file: BodyFileOpt = None,
    parent: Annotated[int | None, issue_option("--parent", "Make it a sub-issue.")] = None,
    state: Annotated[str | None, typer.Option("--state", help="Initial workflow state.")] = None,
    estimate: Annotated[str | None, typer.Option("--estimate", "-e", help="XS..XL.")] = None,
    priority: Annotated[str | None, typer.Option("--priority", "-p", help="P0..P3.")] = None,
    labels: Annotated[list[str] | None, typer.Option("--label", "-l", help="Repeatable.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Open a new issue (default state Backlog). Without --body or --body-file on a
    terminal, $VISUAL or $EDITOR opens for the description."""
    from ralph.cli._issue_body import body_from  # the editor: only to write an issue
    from ralph.tracker import check_labels

    initial = parse_state("Backlog" if state is None else state)
    size = None if estimate is None else parse_estimate(estimate)
    urgency = None if priority is None else parse_priority(priority)
    check_title(title)  # before the tracker opens: a GitHub round trip to refuse it
    check_labels(labels or ())
    text = body_from(body, body_file, title=title, ask=True) or ""
    with project_tracker(ctx) as (_, tracker):
        issue = tracker.create_issue(
            title,
            body=text,
            parent=parent,
            state=initial,
            estimate=size,
            priority=urgency,
            labels=labels or (),
            author="human",
        )
    if as_json:
        from ralph.views import issue_dict  # its documents' sections: for JSON alone

        echo(json.dumps(issue_dict(issue), indent=2))
    else:
        under = f" under {tracker.issue_name(parent)}" if parent else ""
        name = tracker.issue_name(issue.number)
        say(f"Created {name}{under}: {issue.title} [{issue.workflow_state}]")


@issue_app.command("edit")
def issue_edit(
    ctx: typer.Context,
    number: Number,
    title: Annotated[str | None, typer.Option("--title", "-t", help="A new title.")] = None,
    body: BodyOpt = None,
    body_file: BodyFileOpt = None,
    estimate: Annotated[str | None, typer.Option("--estimate", "-e", help="XS..XL.")] = None,
    priority: Annotated[str | None, typer.Option("--priority", "-p", help="P0..P3.")] = None,
    add_labels: Annotated[list[str] | None, typer.Option("--add-label", help="Repeatable.")] = None,
    remove_labels: Annotated[
        list[str] | None, typer.Option("--remove-label", help="Repeatable.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Change an issue's title, description, estimate, priority or labels, as ``gh
    issue edit`` does; every value is checked before anything changes."""
    from ralph.cli._issue_body import body_from
    from ralph.tracker import check_labels

    size = None if estimate is None else parse_estimate(estimate)
    urgency = None if priority is None else parse_priority(priority)
    if title is not None:
        check_title(title)
    check_labels([*(add_labels or ()), *(remove_labels or ())])
    text = body_from(body, body_file, title=title or "", ask=False)
    given = (title, text, size, urgency, add_labels, remove_labels)
    if all(value is None or value == [] for value in given):
        raise InvalidInput(
            "give what to change: --title, --body, --body-file, --estimate, --priority, "
            "--add-label or --remove-label"
        )
    with project_tracker(ctx) as (_, tracker):
        issue = tracker.edit_issue(
            number,
            title=title,
            body=text,
            estimate=size,
            priority=urgency,
            add_labels=add_labels or (),
            remove_labels=remove_labels or (),
        )
    if as_json:
        from ralph.views import issue_dict  # its documents' sections: for JSON alone

        echo(json.dumps(issue_dict(issue), indent=2))
    else:
        name = tracker.issue_name(issue.number)
        say(f"Edited {name}: {issue.title} [{issue.workflow_state or 'no state'}]")


@issue_app.command("list")
def issue_list(
    ctx: typer.Context,
    states: Annotated[
        list[str] | None,
        typer.Option(
            "--state",
            "-s",
            help="Repeatable; open and closed issues in that state (gh's all, open and "
            "closed too).",
        ),
    ] = None,
    estimates: Annotated[list[str] | None, typer.Option("--estimate", "-e")] = None,
    labels: Annotated[list[str] | None, typer.Option("--label", "-l")] = None,
    text: Annotated[str, typer.Option("--text", help="In the title or body.")] = "",
    closed: Annotated[bool, typer.Option("--closed", help="Closed issues instead.")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="Open and closed.")] = False,
    archived: Annotated[
        bool, typer.Option("--archived", help="Archived issues too (ralph hygiene --archive).")
    ] = False,
    order: Annotated[
        IssueOrder,
        typer.Option("--order", help=f"One of: {', '.join(o.value for o in IssueOrder)}."),
    ] = IssueOrder.PRIORITY,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=0,
            max=MAX_COUNT,
            help=f"At most this many (0: all). Default {LIST_LIMIT}, and every issue with --json.",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Issues, most urgent first."""
    from ralph.tracker import IssueQuery, IssueStatus, check_labels

    check_labels(labels or ())  # no label has such a name: a typo, not an empty list
    # gh's spelling (`gh issue list --state all`) says which issues, not a workflow state.
    said = {s.strip().lower() for s in states or ()}
    show_all = show_all or "all" in said
    closed = closed or "closed" in said
    states = [s for s in states or () if s.strip().lower() not in _GH_STATES]
    # Asking for a state asks for its issues, closed or not: `--state Done` lists what is done.
    everything = show_all or (bool(states) and not closed)
    query = IssueQuery(
        states=frozenset(parse_state(s) for s in states or ()),
        estimates=frozenset(parse_estimate(e) for e in estimates or ()),
        labels=frozenset(labels or ()),
        text=text,
        status=None if everything else IssueStatus.CLOSED if closed else IssueStatus.OPEN,
        archived=None if archived else False,
        order=order,
    )
    with project_tracker(ctx) as (_, tracker):
        found = tracker.list_issues(query)
    # Machines get every issue unless they ask for fewer; a person the first screenfuls.
    if limit is None:
        limit = 0 if as_json else LIST_LIMIT
    issues = found[:limit] if limit else found
    if as_json:
        from ralph.views import issue_dict  # its documents' sections: for JSON alone

        echo(json.dumps([issue_dict(i, full=False) for i in issues], indent=2))
        return
    more = (
        f"Showing {len(issues)} of {len(found)} issues: --limit N shows N, --limit 0 shows all."
        if len(issues) < len(found)
        else None
    )
    # A pipe reads one issue a line, never a title wrapped over two; Rich's table only
    # where it could be a terminal (its console has the last word).
    if issues and not styled():
        _print_rows(issues, more)
        return
    from ralph.cli._console import Console
    from ralph.cli._issue_render import render_issue_list

    console = Console()
    if console.is_terminal or not issues:
        console.print(render_issue_list(issues))
        if more:
            console.print(more, style="bright_black")
    else:
        _print_rows(issues, more)


def _print_rows(issues: Sequence[Issue], more: str | None) -> None:
    from ralph.cli._issue_rows import plain_issue_rows

    echo(plain_issue_rows(issues), end="")
    if more:
        echo(more, err=True)


#: ``gh issue list --state``'s words, none of them a workflow state.
_GH_STATES = ("all", "open", "closed")


@issue_app.command("show")
def issue_show(ctx: typer.Context, number: Number, as_json: JsonOpt = False) -> None:
    """One issue with its relations, state history, linked documents and the tool calls
    its agents were refused: in a panel on a terminal, as plain lines (the description
    as written) when piped."""
    from ralph.views import load_issue

    with open_project_of(ctx) as project:
        view = load_issue(project, number)
    if as_json:
        echo(json.dumps(view.to_dict(), indent=2))
    elif not styled():  # a pipe: plain lines, as Rich's panel would not help it
        from ralph._text import printable
        from ralph.cli._issue_plain import plain_issue

        page = plain_issue(view.issue, view.related, view.prs, view.root, view.refusals)
        echo(printable(page, ""), end="")  # control characters dropped, as Rich drops them
    else:
        from ralph.cli._console import Console
        from ralph.cli._issue_render import (
            render_comments,
            render_documents,
            render_issue,
            render_needs_person,
        )

        console = Console()
        needs_person = render_needs_person(view.issue)
        if needs_person is not None:
            console.print(needs_person)
        console.print(render_issue(view.issue, view.related, view.prs, view.root, view.refusals))
        for line in [*render_documents(view.issue, view.root), *render_comments(view.issue)]:
            console.print(line, soft_wrap=True)  # never cut: these are copied


@issue_app.command("move")
def issue_move(
    ctx: typer.Context,
    number: Number,
    state: Annotated[str, typer.Argument(help="A workflow state or __INTENT__.")],
    command: Annotated[str, typer.Option("--command", "-c", help="Acting command.")] = "human",
    actor: Annotated[str, typer.Option("--actor", help="Who is moving it.")] = "human",
) -> None:
    """Move an issue through the workflow (checked against the state machine)."""
    with project_tracker(ctx) as (_, tracker):
        change = tracker.set_state(number, state, command=command, actor=actor)
    if change.changed:
        name = tracker.issue_name(number)
        say(f"{name}: {change.previous or '(no state)'} → {change.new} ({change.command})")
    else:
        say(f"{tracker.issue_name(number)} is already in {change.new}; nothing changed")


@issue_app.command("retry")
def issue_retry(
    ctx: typer.Context,
    number: Number,
    actor: Annotated[str, typer.Option("--actor", help="Who is sending it back.")] = "human",
    accept_control_files: Annotated[
        bool,
        typer.Option(
            "--accept-control-files",
            help="Let through the change to Ralph's control files (ralph.toml, .claude/, "
            "...) it was held for, as its branch has them now: you reviewed it.",
        ),
    ] = False,
) -> None:
    """Send an escalated issue (Human Needed) back to where its phase starts again, for
    the next hero, team, loop or serve to take up."""
    from ralph.phases import accept_control_files as accept
    from ralph.phases import retry_escalated

    with open_project_of(ctx) as project:
        accepted = accept(project, number) if accept_control_files else []
        change = retry_escalated(project, number, actor=actor)
    if accepted:
        say(f"#{number}: accepted the change to {', '.join(accepted)}.")
    say(
        f"#{number}: {change.previous} → {change.new}. Next: `ralph hero {number}` (or the "
        "same team or loop again; `ralph serve` picks it up)."
    )


@issue_app.command("estimate")
def issue_estimate(
    ctx: typer.Context, number: Number, estimate: Annotated[str, typer.Argument(help="XS..XL")]
) -> None:
    """Set an issue's estimate."""
    value = parse_estimate(estimate)
    with project_tracker(ctx) as (_, tracker):
        tracker.update_issue(number, estimate=value)
    say(f"{tracker.issue_name(number)}: estimate {value}")


@issue_app.command("priority")
def issue_priority(
    ctx: typer.Context, number: Number, priority: Annotated[str, typer.Argument(help="P0..P3")]
) -> None:
    """Set an issue's priority."""
    value = parse_priority(priority)
    with project_tracker(ctx) as (_, tracker):
        tracker.update_issue(number, priority=value)
    say(f"{tracker.issue_name(number)}: priority {value}")


@issue_app.command("label")
def issue_label(
    ctx: typer.Context,
    number: Number,
    add: Annotated[list[str] | None, typer.Option("--add", "-a", help="Repeatable.")] = None,
    remove: Annotated[list[str] | None, typer.Option("--remove", "-r", help="Repeatable.")] = None,
) -> None:
    """Add or remove labels."""
    from ralph.tracker import check_labels

    if not add and not remove:
        raise InvalidInput("give --add LABEL or --remove LABEL")
    check_labels(remove or ())  # no label has such a name: a typo, not a no-op
    with project_tracker(ctx) as (_, tracker):
        current = tracker.get_issue(number).labels
        labels = [label for label in current if label not in (remove or ())] + list(add or ())
        issue = tracker.update_issue(number, labels=labels)
    say(f"{tracker.issue_name(number)}: labels {', '.join(issue.labels) or '(none)'}")


@issue_app.command("block")
def issue_block(
    ctx: typer.Context,
    number: Number,
    by: Annotated[int, issue_option("--by", "The issue it waits for.")],
) -> None:
    """Record that an issue is blocked by another."""
    with project_tracker(ctx) as (_, tracker):
        tracker.add_dependency(number, by)
    say(f"{tracker.issue_name(number)} is blocked by {tracker.issue_name(by)}")


@issue_app.command("unblock")
def issue_unblock(
    ctx: typer.Context,
    number: Number,
    by: Annotated[int, issue_option("--by", "The blocker to drop.")],
) -> None:
    """Drop a blocked-by relation."""
    with project_tracker(ctx) as (_, tracker):
        tracker.remove_dependency(number, by)
    say(f"{tracker.issue_name(number)} no longer waits for {tracker.issue_name(by)}")


@issue_app.command("child")
def issue_child(
    ctx: typer.Context,
    parent: Annotated[int, issue_argument("Parent issue.")],
    child: Annotated[int, issue_argument("Issue to place under it.")],
    replace: Annotated[bool, typer.Option("--replace", help="Move it from its parent.")] = False,
    remove: Annotated[bool, typer.Option("--remove", help="Detach it instead.")] = False,
) -> None:
    """Make an issue a sub-issue of another (or detach it with --remove)."""
    with project_tracker(ctx) as (_, tracker):
        if remove:
            tracker.remove_sub_issue(parent, child)
        else:
            tracker.add_sub_issue(parent, child, replace_parent=replace)
    joined = "detached from" if remove else "is now a sub-issue of"
    say(f"{tracker.issue_name(child)} {joined} {tracker.issue_name(parent)}")


@issue_app.command("comment")
def issue_comment(
    ctx: typer.Context,
    number: Number,
    body: Annotated[str, typer.Argument(help="The comment ('-' reads stdin).")],
    author: Annotated[str, typer.Option("--author")] = "human",
) -> None:
    """Comment on an issue."""
    text = sys.stdin.read() if body == "-" else body
    check_text(text, "the comment")
    with project_tracker(ctx) as (_, tracker):
        tracker.add_comment(number, text, author=author)
    say(f"Commented on {tracker.issue_name(number)}")


@issue_app.command("close")
def issue_close(
    ctx: typer.Context,
    number: Number,
    reason: Annotated[CloseReason, typer.Option("--reason")] = CloseReason.COMPLETED,
    reopen: Annotated[bool, typer.Option("--reopen", help="Reopen it instead.")] = False,
) -> None:
    """Close an issue (or reopen it). Its workflow state is left as it is."""
    with project_tracker(ctx) as (_, tracker):
        if reopen:
            tracker.reopen_issue(number)
        else:
            tracker.close_issue(number, reason)
    say(f"{tracker.issue_name(number)} {'reopened' if reopen else f'closed ({reason})'}")


@issue_app.command("archive")
def issue_archive(
    ctx: typer.Context,
    number: Number,
    undo: Annotated[bool, typer.Option("--undo", help="Put it back on the board.")] = False,
) -> None:
    """Take an issue off the board's lists and dashboard (GitHub: archive its project
    item); ``ralph issue list --archived`` still shows it. ``ralph hygiene --archive``
    archives everything done long ago."""
    with project_tracker(ctx) as (_, tracker):
        if undo:
            tracker.unarchive_issue(number)
        else:
            tracker.archive_issue(number)
    say(f"{tracker.issue_name(number)} {'back on the board' if undo else 'archived'}")


@issue_app.command("next")
def issue_next(
    ctx: typer.Context,
    command: Annotated[
        str | None, typer.Option("--command", "-c", help="Pick for this phase (research...).")
    ] = None,
    states: Annotated[list[str] | None, typer.Option("--state", "-s")] = None,
    max_estimate: Annotated[str | None, typer.Option("--max-estimate")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The issue a phase should take next: not locked, blocked or escalated; most
    urgent, then oldest. Exit code 1 when there is none."""
    from ralph.views import issue_dict

    chosen = frozenset(parse_state(s) for s in states or ())
    estimates = None
    if max_estimate is not None:
        ceiling = parse_estimate(max_estimate)
        estimates = [e for e in type(ceiling) if e <= ceiling]
    if command is None and not chosen:
        raise InvalidInput("give --command PHASE (e.g. research) or --state STATE")
    with project_tracker(ctx) as (_, tracker):
        found = tracker.look_for_work(command=command, states=chosen, estimates=estimates)
    issue = found.issues[0] if found.issues else None
    payload: dict[str, Any] = {"found": issue is not None}
    if issue is not None:
        payload["issue"] = issue_dict(issue, full=False)
    else:
        payload["why"] = found.why_none()
    if as_json:
        echo(json.dumps(payload, indent=2))
    elif issue is not None:
        say(f"{tracker.issue_name(issue.number)} {issue.title} [{issue.workflow_state}]")
    else:
        say(f"Nothing actionable: {found.why_none()}.")
    if issue is None:
        raise typer.Exit(1)
