"""The root group, which builds only the command asked for.

Building every command's Click command (its parameters from its signature and type
hints) and importing every command module took longer than ``ralph status`` itself. So
the root lists its commands from ``_commands`` (their names, summaries and panels, which
is all ``ralph --help`` and shell completion show), and imports a command's module and
builds it when the command is resolved to run (or to show its own ``--help``). A group
of commands (``ralph issue``) does the same with its subcommands, from their docstrings:
``ralph issue list`` reads one signature, not thirty. The documents and the tests that
walk the whole tree build it all (``whole_tree``).
"""

from __future__ import annotations

import copy
import importlib
import inspect
from typing import Any

import typer
import typer.main
from typer import _click as click
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandInfo, TyperInfo

from ralph.cli._commands import PANELS, Listed
from ralph.cli._help import HelpAsWritten, _tidy_help

__all__ = ["LazyRoot", "whole_tree"]

#: Typer's default, which the root app keeps (its tracebacks are off anyway).
_PRETTY_EXCEPTIONS_SHORT = True


class _Unloaded(TyperCommand):
    """A root command not imported yet: its name, summary and panel, for listings."""

    def __init__(self, listed: Listed, panel: str) -> None:
        super().__init__(
            listed.name, short_help=listed.summary, hidden=listed.hidden, rich_help_panel=panel
        )
        self.listed = listed


def summarise(info: CommandInfo) -> None:
    """Give a command a one-line summary from its docstring's first paragraph.

    Rich help lists a command by that paragraph but keeps its hard line breaks, so a
    docstring wrapped at 100 columns shows ragged lines in ``--help``.
    """
    doc = inspect.getdoc(info.callback) if info.callback else None
    if info.short_help is None and info.help is None and doc:
        info.short_help = " ".join(doc.split("\n\n")[0].split())


class _Unbuilt(TyperCommand):
    """A group's subcommand not built yet: what the group's ``--help`` lists of it."""

    def __init__(self, info: CommandInfo | TyperInfo) -> None:
        if isinstance(info, CommandInfo):
            summarise(info)
            callback: Any = info.callback
            name = info.name or typer.main.get_command_name(callback.__name__)
            help_text = inspect.getdoc(callback) if info.help is None else info.help
            shown: Any = info
        else:
            shown = typer.main.solve_typer_info_defaults(info)
            name, help_text = shown.name, shown.help
        super().__init__(
            name,
            help=help_text,
            short_help=shown.short_help,
            hidden=shown.hidden,
            deprecated=shown.deprecated,
            rich_help_panel=shown.rich_help_panel,
        )
        self.info = info


class _BuildsOnResolve(TyperGroup):
    """Mixed into a group's own class: a subcommand is built when it is resolved."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, _Unbuilt):
            command = _build(self, command, escaped=_escaped(ctx))
        return name, command, rest


_LAZY_CLASSES: dict[type[TyperGroup], type[TyperGroup]] = {}


def _escaped(ctx: click.Context) -> bool:
    """Whether the root has escaped the tree's help already (``HelpAsWritten``)."""
    return bool(getattr(ctx.find_root().command, "_escaped", False))


def _group(info: TyperInfo, markup: Any, suggest: bool) -> TyperGroup:
    """The group ``info`` makes, its subcommands listed but not built."""
    defined = info.typer_instance
    assert defined is not None
    subcommands: list[CommandInfo | TyperInfo] = [
        *defined.registered_commands,
        *defined.registered_groups,
    ]
    listed = [_Unbuilt(sub) for sub in subcommands]
    if any(not command.name for command in listed):  # merged into this group: as Typer does
        return typer.main.get_group_from_info(
            info,
            pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
            rich_markup_mode=markup,
            suggest_commands=suggest,
        )
    shell = copy.copy(defined)  # the group itself, its callback and settings, no commands
    shell.registered_commands, shell.registered_groups = [], []
    shell_info = copy.copy(info)
    shell_info.typer_instance = shell
    group = typer.main.get_group_from_info(
        shell_info,
        pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
        rich_markup_mode=markup,
        suggest_commands=suggest,
    )
    own = type(group)
    if own not in _LAZY_CLASSES:
        _LAZY_CLASSES[own] = type(own.__name__, (_BuildsOnResolve, own), {})
    group.__class__ = _LAZY_CLASSES[own]
    for command in listed:
        group.commands[str(command.name)] = command
    return group


def _build(group: TyperGroup, unbuilt: _Unbuilt, *, escaped: bool) -> click.Command:
    """The subcommand ``unbuilt`` lists, built, in its place in ``group`` from now on."""
    command: click.Command
    if isinstance(unbuilt.info, CommandInfo):
        command = typer.main.get_command_from_info(
            unbuilt.info,
            pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
            rich_markup_mode=group.rich_markup_mode,
        )
    else:
        command = _group(unbuilt.info, group.rich_markup_mode, group.suggest_commands)
    if escaped:  # else the root escapes it with the rest when it starts
        _tidy_help(command)
    group.commands[str(unbuilt.name)] = command
    return command


def _build_all(group: TyperGroup, *, escaped: bool) -> None:
    for command in list(group.commands.values()):
        if isinstance(command, _Unbuilt):
            command = _build(group, command, escaped=escaped)
        if isinstance(command, TyperGroup):
            _build_all(command, escaped=escaped)


class LazyRoot(HelpAsWritten):
    """The root group: its commands listed from the table, each built when it runs."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for panel, listed in PANELS:
            for entry in listed:
                self.commands[entry.name] = _Unloaded(entry, panel)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, _Unloaded):
            command = self.load(command)
        return name, command, rest

    def load(self, unloaded: _Unloaded) -> click.Command:
        """The command ``unloaded`` lists, imported and built, in its place from now on."""
        listed = unloaded.listed
        defined = getattr(importlib.import_module(listed.module), listed.attribute)
        command: click.Command
        if isinstance(defined, typer.Typer):
            info = TyperInfo(defined, rich_help_panel=unloaded.rich_help_panel)
            command = _group(info, self.rich_markup_mode, self.suggest_commands)
        else:
            # As app.command(name, rich_help_panel=...) registers it, defaults and all.
            registry = typer.Typer()
            registry.command(listed.name, rich_help_panel=unloaded.rich_help_panel)(defined)
            registered = registry.registered_commands[0]
            summarise(registered)
            command = typer.main.get_command_from_info(
                registered,
                pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
                rich_markup_mode=self.rich_markup_mode,
            )
        if self._escaped:  # else the root escapes it with the rest when it starts
            _tidy_help(command)
        self.commands[listed.name] = command
        return command

    def load_all(self) -> None:
        """Every command built, the groups' subcommands too."""
        for command in list(self.commands.values()):
            if isinstance(command, _Unloaded):
                self.load(command)
        _build_all(self, escaped=self._escaped)


def whole_tree(app: typer.Typer) -> LazyRoot:
    """``app``'s root with every command built (for the documents and the tests)."""
    root = typer.main.get_command(app)
    assert isinstance(root, LazyRoot)
    root.load_all()
    return root
