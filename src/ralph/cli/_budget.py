"""``ralph budget``: spend against every cap, the issues held and the providers waited
for; ``ralph budget lift N`` lifts a hold. Thin over :mod:`ralph.views` and the store."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._project import guarded_config, project_config, store_of
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.views import CapsView

__all__ = ["budget_app"]

budget_app = typer.Typer(
    name="budget",
    help="Spend against every cap (run, day, issue: dollars, tokens, agent sessions), the "
    "issues held and the providers waited for; `ralph budget lift N` lifts a hold.",
    invoke_without_command=True,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _amount(unit: str, value: float) -> str:
    if unit == "usd":
        return f"${value:,.2f}"
    return f"{int(value):,} {unit}"


def _print(view: CapsView) -> None:
    from ralph.orchestrate import provider_wait_text

    console = Console()
    table = Table(title="Spend against the caps", title_justify="left")
    for column in ("Scope", "Setting", "Spent", "Cap"):
        table.add_column(column)
    for line in view.caps:
        cap = _amount(line.unit, line.cap) if line.cap > 0 else "no cap"
        spent = Text(_amount(line.unit, line.spent), style="bold red" if line.reached else "")
        table.add_row(line.scope, line.setting, spent, cap)
    console.print(table)
    if not view.holds:
        console.print("No issue is held.")
    for hold in view.holds:
        said = Text(f"#{hold.number} held: {hold.reason.value}", style="bold yellow")
        said.append(f" — {hold.detail}")
        if hold.lift:
            said.append(f"; {hold.lift}")
        console.print(said)
    now = time.time()
    for wait in view.waits:  # on one printable line, the date said when not today
        console.print(Text(provider_wait_text(wait, now=now)))


@budget_app.callback()
def budget_command(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Spend against every cap of ralph.toml (the latest run's, today's, each issue's the
    latest run worked on), the issues held with the one command that lifts or raises
    each, and the agents waiting for their provider's limit."""
    from ralph.views import load_caps

    if ctx.invoked_subcommand is not None:
        return
    config, _ = guarded_config(project_config())  # the caps in force, not a Ralph merge's
    with store_of(ctx) as store:
        view = load_caps(store, config, now=time.time())
    if as_json:
        echo(json.dumps(view.to_dict(), indent=2))
        return
    _print(view)


@budget_app.command("lift")
def budget_lift_command(
    ctx: typer.Context,
    number: Annotated[int, typer.Argument(help="The held issue's number.", min=1)],
    as_json: JsonOpt = False,
) -> None:
    """Lift the hold on issue N (a budget hold or the no-progress breaker's): its work
    starts again at the next run. A cap still reached holds it again then; raise the cap."""
    from ralph.views import hold_document

    config = project_config()
    with store_of(ctx) as store:
        lifted = store.lift_hold(config.repo, number)
    if lifted is None:
        raise InvalidInput(f"#{number} is not held; `ralph budget` lists the holds")
    if as_json:
        echo(json.dumps(hold_document(lifted), indent=2))
        return
    Console().print(Text(f"Lifted the hold on #{number} ({lifted.reason.value}: {lifted.detail})."))
