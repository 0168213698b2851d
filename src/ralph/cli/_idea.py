"""``ralph idea new`` and ``ralph idea form``: an idea written down, then filed as an
issue (or an epic with children) once no open issue already is the same work."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from ralph.cli._echo import say
from ralph.cli._editor import edit_on_terminal
from ralph.cli._project import project_config, project_tracker
from ralph.errors import InvalidInput, RalphError
from ralph.workflow import parse_estimate

__all__ = ["idea_app"]

idea_app = typer.Typer(
    name="idea", help="Ideas: written down, then formed into issues.", no_args_is_help=True
)


#: Reading one git setting: a local file, at once.
_GIT_CONFIG_SECONDS = 10


@idea_app.command("new")
def idea_new(
    text: Annotated[str, typer.Argument(help="The idea ('-': standard input).")],
    title: Annotated[
        str | None,
        typer.Option("--title", help="Its heading (default: its first line).", show_default=False),
    ] = None,
    tags: Annotated[list[str] | None, typer.Option("--tag", help="Repeatable.")] = None,
) -> None:
    """Write an idea down: thoughts/shared/ideas/YYYY-MM-DD-slug.md in the project, with
    the sections to fill in (Why This Matters, Rough Shape, ...), opened in $VISUAL or
    $EDITOR when you are at a terminal. Not committed."""
    from ralph.phases import new_idea

    idea = sys.stdin.read() if text == "-" else text
    root = project_config().root
    path = new_idea(
        root, idea, title=title, tags=tags or (), day=date.today(), author=_git_user(root)
    )
    shown = path.relative_to(root).as_posix()
    if edit_on_terminal(path):
        say(f"Wrote {shown}; file it as an issue: ralph idea form {shown}")
    else:
        say(f"Wrote {shown}; fill it in, then: ralph idea form {shown}")


def _git_user(root: Path) -> str:
    """Who writes the idea: git's user.name, else "user"."""
    from ralph.git import GitRepo

    try:
        name = GitRepo(root).run("config", "user.name", timeout=_GIT_CONFIG_SECONDS).stdout
    except RalphError:
        name = ""
    return name.strip() or "user"


@idea_app.command("form")
def idea_form(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The idea's file.", show_default=False)],
    epic: Annotated[
        bool,
        typer.Option("--epic", help="An epic with a child per item of its Rough Shape."),
    ] = False,
    estimate: Annotated[
        str | None,
        typer.Option("--estimate", "-e", help="XS..XL (an epic: M, L or XL; default M)."),
    ] = None,
    allow_duplicate: Annotated[
        bool,
        typer.Option("--allow-duplicate", help="File it even if an open issue looks the same."),
    ] = False,
) -> None:
    """File an idea as an issue (Summary, Acceptance Criteria, Context) in Backlog, after
    looking for an open issue with a title as good as the same; records the issue in the
    idea's frontmatter."""
    from ralph.phases import form_idea

    size = None if estimate is None else parse_estimate(estimate)
    if "\x00" in file or not file.strip():
        raise InvalidInput(f"{file!r} is not a file name; give the idea's path")
    path = Path(file).resolve()
    with project_tracker(ctx) as (config, tracker):
        try:
            source = path.relative_to(config.root.resolve()).as_posix()
        except ValueError:
            source = str(path)
        formed = form_idea(
            tracker, path, source=source, epic=epic, estimate=size, allow_duplicate=allow_duplicate
        )
    issue = formed.issue
    say(f"Created #{issue.number}: {issue.title} [{issue.workflow_state}]; {source} links it")
    for child in formed.children:
        say(f"  #{child.number}: {child.title} [{child.estimate}]")
    # By hand first: the person who formed it can research it without an agent.
    first = formed.children[0].number if formed.children else issue.number
    agent = f"ralph hero {issue.number}" if formed.children else f"ralph run triage {first}"
    say(f"Next: ralph research {first} --interactive (by hand), or {agent} (the agent)")
