"""The root lists its commands from a table and builds only the one asked for; the table
says what the commands themselves say (summary, panel), no more and no less."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

import ralph.cli
from ralph.cli import app
from ralph.cli._commands import PANELS
from ralph.cli._lazy_root import LazyRoot, whole_tree


def _summary(command: Any) -> str:
    """What ``--help`` lists for a command: its summary's first paragraph."""
    return str(inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0])


def _typer_apps(typer_app: typer.Typer) -> Iterator[typer.Typer]:
    yield typer_app
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            yield from _typer_apps(group.typer_instance)


def _a_command_function(name: str, value: Any, module: str) -> bool:
    public = name.endswith("_command") and not name.startswith("_")
    return public and inspect.isfunction(value) and value.__module__ == module


def _defined_in_the_cli() -> Iterator[tuple[str, Any]]:
    """Every Typer app and public ``*_command`` function the CLI's modules define."""
    for found in pkgutil.iter_modules(ralph.cli.__path__):
        module = importlib.import_module(f"ralph.cli.{found.name}")
        for name, value in vars(module).items():
            if (isinstance(value, typer.Typer) and value is not app) or _a_command_function(
                name, value, module.__name__
            ):
                yield f"{found.name}.{name}", value


def test_the_table_lists_every_command_with_the_summary_and_panel_the_command_has():
    root = whole_tree(app)
    listed = [(panel, entry) for panel, entries in PANELS for entry in entries]
    assert list(root.commands) == [entry.name for _, entry in listed]
    for panel, entry in listed:
        command = root.commands[entry.name]
        assert command.name == entry.name
        assert _summary(command) == entry.summary, entry.name
        assert command.rich_help_panel == panel, entry.name  # type: ignore[attr-defined]
        assert command.hidden == entry.hidden, entry.name


def test_every_command_the_cli_defines_is_reachable_from_the_table():
    apps: list[typer.Typer] = []
    functions: list[Any] = []
    for _, entries in PANELS:
        for entry in entries:
            defined = getattr(importlib.import_module(entry.module), entry.attribute)
            if isinstance(defined, typer.Typer):
                apps.extend(_typer_apps(defined))
            else:
                functions.append(defined)
    functions += [info.callback for sub in apps for info in sub.registered_commands]
    functions += [sub.registered_callback.callback for sub in apps if sub.registered_callback]
    unreachable = [
        where
        for where, value in _defined_in_the_cli()
        if not any(value is seen for seen in [*apps, *functions])
    ]
    assert unreachable == []


def test_the_root_builds_only_the_command_that_runs():
    root = typer.main.get_command(app)
    assert isinstance(root, LazyRoot)
    built = {name for name, command in root.commands.items() if command.params}
    assert built == set()  # listed only: no parameters read from any signature
    with root.make_context("ralph", ["version"]) as ctx:
        name, command, _ = root.resolve_command(ctx, ["version"])
    assert name == "version"
    assert command is root.commands["version"]
    assert {n for n, c in root.commands.items() if c.callback is not None} == {"version"}


def test_a_mistyped_command_is_refused_with_the_commands_it_resembles():
    shown = CliRunner().invoke(app, ["stauts"])
    assert shown.exit_code == 2
    assert "No such command 'stauts'. Did you mean 'status'?" in shown.output


def test_a_command_runs_with_its_own_help_escaped_once():
    shown = CliRunner().invoke(app, ["debug", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "[debug]" in shown.output
    assert "\\[debug]" not in shown.output


def test_shell_completion_lists_the_commands_without_building_them():
    root = typer.main.get_command(app)
    assert isinstance(root, LazyRoot)
    with root.make_context("ralph", [], resilient_parsing=True) as ctx:
        offered = [(item.value, item.help) for item in root.shell_complete(ctx, "st")]
    status = next(entry for _, entries in PANELS for entry in entries if entry.name == "status")
    assert offered == [("status", status.summary)]  # ``store`` is hidden
    assert all(command.callback is None for command in root.commands.values())


def test_a_group_builds_only_the_subcommand_that_runs():
    root = typer.main.get_command(app)
    assert isinstance(root, LazyRoot)
    with root.make_context("ralph", ["issue", "list"]) as ctx:
        _, issue, rest = root.resolve_command(ctx, ["issue", "list"])
        assert isinstance(issue, TyperGroup)
        with issue.make_context("issue", rest, parent=ctx) as sub:
            _, listing, _ = issue.resolve_command(sub, rest)
    assert listing is issue.commands["list"]
    assert listing.callback is not None
    built = {name for name, command in issue.commands.items() if command.callback is not None}
    assert built == {"list"}
    assert len(issue.commands) > 10  # the others listed, for ``ralph issue --help``
