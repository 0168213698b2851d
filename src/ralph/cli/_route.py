"""``ralph route N``: where ``.ralph-routing.yml`` sends an issue, and with ``--apply``,
sending it there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import project_config, project_tracker
from ralph.routing import ROUTING_FILE

__all__ = ["route_command"]


def route_command(
    ctx: typer.Context,
    number: Annotated[int, issue_argument("Issue number.")],
    apply: Annotated[bool, typer.Option("--apply", help="Apply what the rules say.")] = False,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            envvar="RALPH_ROUTING_CONFIG",
            help=f"The routing rules (default: {ROUTING_FILE} at the project root).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """Where the routing rules send an issue (boards, workflow state, labels), by its
    repository, labels and type; --apply moves it there. A state it cannot move to
    refuses the whole routing before anything is written."""
    from ralph.board import apply_route, load_routing, route_issue

    if file is None:
        rules = load_routing(project_config().root / ROUTING_FILE, shown=ROUTING_FILE)
    else:
        rules = load_routing(file)
    with project_tracker(ctx) as (_, tracker):
        decision = route_issue(tracker, rules, number)
        done = apply_route(tracker, decision) if apply and decision.matched else ()
    if as_json:
        steps = done or decision.steps()
        found = {**decision.to_dict(), "applied": apply, "steps": [s.to_dict() for s in steps]}
        echo(json.dumps(found, indent=2))
        return
    console = Console(highlight=False)

    def say(text: str) -> None:
        console.print(text, markup=False)

    labels = ", ".join(decision.context.labels) or "no labels"
    say(f"#{number} {decision.title} ({decision.context.repo}; {labels})")
    if not decision.matched:
        say("No rule matches it: nothing to do.")
        return
    for matched in decision.evaluation.matched:
        say(f"Matches {matched.label}")
    if apply:
        for step in done:
            say(f"  {step.action} {step.target}: {step.outcome}")
        return
    for step in decision.steps():
        say(f"  would set {step.action} {step.target}")
    if not decision.steps():
        say("  nothing left to change")
    if decision.refusal:
        say(f"  but: {decision.refusal}")
    say("Run again with --apply to apply it.")
