"""``ralph runs|tasks ...``: looking into the task store; ``ralph db ...``: keeping the
database (``ralph store reap`` is the old spelling of ``ralph db reap``, hidden)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ralph.cli._activity import activity_events, activity_text, print_activity
from ralph.cli._console import Console
from ralph.cli._echo import echo
from ralph.cli._project import database_of, project_root, store_of
from ralph.cli._report import MARKS, counted, outcome_text, print_report, waiting_text
from ralph.errors import InvalidInput
from ralph.tasks import TaskStatus

if TYPE_CHECKING:
    from ralph.tasks import TaskStore

__all__ = ["db_app", "runs_app", "store_app", "tasks_app"]

runs_app = typer.Typer(name="runs", help="Runs in the task store.", no_args_is_help=True)
tasks_app = typer.Typer(name="tasks", help="Tasks in the task store.", no_args_is_help=True)
db_app = typer.Typer(
    name="db",
    help=(
        "Database maintenance: the task store's and the local tracker's tables. "
        "(`ralph store reap` still works as the old spelling of `ralph db reap`.)"
    ),
    no_args_is_help=True,
)
#: The old spelling of ``ralph db reap``, kept working but not shown.
store_app = typer.Typer(name="store", hidden=True, no_args_is_help=True)


JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def _when(seconds: float | None) -> str:
    if not seconds:
        return "—"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _mark(status: TaskStatus) -> Text:
    symbol, style = MARKS[status]
    return Text(f"{symbol} {status.value}", style=style)


@runs_app.command("list")
def runs_list(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Every run, newest first: how it ended and how many of its tasks are done (tasks a
    re-plan replaced left out)."""
    from ralph.orchestrate import run_outcome, tally
    from ralph.views import runs_document

    with store_of(ctx) as store:
        runs = store.list_runs()
        tasks = {run.id: store.list_tasks(run.id) for run in runs}
        document = runs_document(store) if as_json else []
    if as_json:
        echo(json.dumps(document, indent=2))
        return
    table = Table(title="Runs", title_justify="left")
    for column in ("Run", "Name", "Mode", "Root", "Outcome", "Done", "Created"):
        table.add_column(column)
    for run in runs:
        root = f"#{run.root_issue}" if run.root_issue else "—"
        outcome = outcome_text(run_outcome(run, tasks[run.id]))
        done = str(tally(tasks[run.id]))
        table.add_row(str(run.id), run.name, run.mode, root, outcome, done, _when(run.created_at))
    Console().print(table if runs else "No runs yet.")


def _latest_run(store: TaskStore) -> int:
    runs = store.list_runs()  # newest first
    if not runs:
        raise InvalidInput("there are no runs yet; ralph hero N or ralph team N starts one")
    return runs[0].id


@runs_app.command("show")
def runs_show(
    ctx: typer.Context,
    run: Annotated[
        int | None, typer.Argument(help="The run's number (default: the latest run).")
    ] = None,
    as_json: JsonOpt = False,
    details: Annotated[
        bool,
        typer.Option(
            "--details",
            help="Also the timing, the coordination counters, the latest events and every "
            "event each task's agent activity keeps.",
        ),
    ] = False,
) -> None:
    """One run's report (how it ended, its tasks, cost, what needs a person); without a
    number, the latest run's."""
    from ralph.orchestrate import RunFiles, load_report
    from ralph.views import run_document

    with store_of(ctx) as store:
        if run is None:
            run = _latest_run(store)
        report = load_report(store, run)
        events = store.events(run)[-15:]
    kept = RunFiles(project_root(), run)
    files = kept.listing()
    if as_json:
        echo(json.dumps(run_document(report, files), indent=2))
        return
    console = Console(highlight=False, soft_wrap=True)
    print_report(report, console, verbose=details)
    print_activity(report, console, every=details)
    if files:
        console.print(f"Task logs and agent transcripts: {kept.folder}")
    if not details:
        return
    table = Table(title="Latest events", title_justify="left")
    for column in ("Event", "At", "Kind", "Task", "Data"):
        table.add_column(column)
    for event in events:
        table.add_row(
            str(event.id),
            _when(event.at),
            event.kind.value,
            str(event.task_id or "—"),
            json.dumps(dict(event.data)) if event.data else "",
        )
    console.print(table)


@runs_app.command("cancel")
def runs_cancel(ctx: typer.Context, run: int) -> None:
    """Cancel an active run: nothing of it starts again, its unfinished tasks are
    canceled, and a process serving it stops once the tasks in hand end."""
    from ralph.orchestrate import cancel_run

    with store_of(ctx) as store:
        canceled = cancel_run(store, run)
    echo(f"Run {run} canceled ({counted(len(canceled), 'unfinished task')} canceled).")


@tasks_app.command("list")
def tasks_list(
    ctx: typer.Context,
    run: Annotated[int | None, typer.Option(help="Only this run's tasks.")] = None,
    status: Annotated[TaskStatus | None, typer.Option(help="Only tasks in this status.")] = None,
    role: Annotated[str | None, typer.Option(help="Only tasks for this role.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Tasks, in creation order."""
    from ralph.graph import Role

    if role is not None and role not in set(Role):
        raise InvalidInput(f"unknown role {role!r}; roles are {', '.join(Role)}")
    with store_of(ctx) as store:
        if run is not None:
            store.get_run(run)  # a run that does not exist is named, not an empty list
        tasks = store.list_tasks(run, status=status, role=role)
    if as_json:
        echo(json.dumps([t.to_dict() for t in tasks], indent=2))
        return
    table = Table(title="Tasks", title_justify="left")
    for column in ("Id", "Run", "Key", "Role", "Status", "Owner", "Tries", "Subject"):
        table.add_column(column)
    for task in tasks:
        table.add_row(
            str(task.id),
            str(task.run_id),
            task.key,
            task.role,
            _mark(task.status),
            task.owner or "—",
            f"{task.attempts}/{task.max_attempts}",
            task.subject,
        )
    Console().print(table if tasks else "No tasks match.")


@tasks_app.command("show")
def tasks_show(ctx: typer.Context, task_id: int, as_json: JsonOpt = False) -> None:
    """One task with its result, error, attempts and history."""
    from ralph.runtimes import Activity
    from ralph.views import task_document

    with store_of(ctx) as store:
        if as_json:
            document = task_document(store, task_id)
        task = store.get_task(task_id)
        history = [e for e in store.events(task.run_id) if e.task_id == task_id]
        deps = {t.id: t for t in store.list_tasks(task.run_id) if t.id in task.deps}
    if as_json:
        echo(json.dumps(document, indent=2))
        return
    text = Text()
    text.append(f"Task {task.id} ({task.key}) of run {task.run_id}\n", style="bold")
    text.append(f"{task.subject}\n")
    text.append("status ")
    text.append_text(_mark(task.status))
    text.append(f", role {task.role}, owner {task.owner or '—'}, ")
    text.append(f"attempt {task.attempts} of {task.max_attempts}\n")
    if deps:
        listed = ", ".join(f"{d.key} ({d.status.value})" for d in deps.values())
        text.append(f"waits for: {listed}\n")
    if task.waiting_for is not None:
        text.append(f"{waiting_text(task.waiting_for, task.not_before)}\n", style="cyan")
    if task.error:
        text.append(f"error: {task.error}\n", style="red")
    if task.result is not None:
        text.append(f"result: {json.dumps(task.result)}\n")
    activity = Activity.from_dict(task.metadata.get("activity"))
    if activity is not None and not activity.empty:
        text.append("agent: ")
        text.append_text(activity_text(activity))
        text.append("\n")
        for said in activity_events(activity):
            text.append("  ")
            text.append_text(said)
            text.append("\n")
    table = Table(title="History", title_justify="left")
    for column in ("At", "Event", "Data"):
        table.add_column(column)
    for event in history:
        table.add_row(_when(event.at), event.kind.value, json.dumps(dict(event.data)))
    Console().print(Group(text, table))


@tasks_app.command("graph")
def tasks_graph(ctx: typer.Context, run: int) -> None:
    """A run's task graph with status marks; blocked tasks say what they wait for."""
    from rich.tree import Tree

    from ralph.orchestrate import key_waits

    with store_of(ctx) as store:
        found = store.get_run(run)
        tasks = store.list_tasks(run)
        held = key_waits(store, run)
    by_id = {t.id: t for t in tasks}
    tree = Tree(Text(f"Run {found.id}: {found.name} ({found.status.value})", style="bold"))
    for task in tasks:
        label = Text()
        label.append_text(_mark(task.status))
        label.append(f"  {task.subject}", style="bold" if task.status is TaskStatus.RUNNING else "")
        label.append(f"  [{task.role}", style="bright_black")
        owner = f", {task.owner}" if task.owner and task.status is TaskStatus.RUNNING else ""
        label.append(f"{owner}]", style="bright_black")
        node = tree.add(label)
        waiting = [by_id[d] for d in task.deps if by_id[d].status is not TaskStatus.DONE]
        if waiting and task.status is TaskStatus.PENDING:
            listed = ", ".join(f"{d.key} ({d.status.value})" for d in waiting)
            node.add(Text(f"waits for {listed}", style="yellow"))
        if task.id in held:
            node.add(Text(waiting_text(held[task.id], None), style="cyan"))
        elif task.waiting_for is not None:
            node.add(Text(waiting_text(task.waiting_for, task.not_before), style="cyan"))
        if task.error and task.status in (TaskStatus.FAILED, TaskStatus.DEAD):
            node.add(Text(task.error, style="red"))
    Console().print(tree)


@db_app.command("reap")
@store_app.command("reap")
def db_reap(ctx: typer.Context) -> None:
    """Return tasks whose lease ran out to pending (or dead when out of attempts)."""
    with store_of(ctx) as store:
        changed = store.reap()
    for task in changed:
        echo(f"task {task.id} ({task.key}) -> {task.status.value}")
    echo(f"{counted(len(changed), 'task')} reaped")


@db_app.command("migrate")
def db_migrate(ctx: typer.Context) -> None:
    """Create the database if needed and apply every missing schema migration."""
    from ralph.project import migrate_database

    with database_of(ctx) as db:
        applied = migrate_database(db)
    echo(f"applied migrations: {applied}" if applied else "schema is up to date")
