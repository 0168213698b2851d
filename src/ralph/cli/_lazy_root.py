"""The root group, which builds only the command asked for.

Building every command's Click command (its parameters from its signature and type
hints) and importing every command module took longer than ``ralph status`` itself. So
the root lists its commands from ``_commands`` (their names, summaries and panels, which
is all ``ralph --help`` and shell completion show), and imports a command's module and
builds it when the command is resolved to run (or to show its own ``--help``). The
documents and the tests that walk the whole tree load it all (``whole_tree``).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import typer
import typer.main
from typer import _click as click
from typer.core import TyperCommand
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


def _summarised(typer_app: typer.Typer) -> None:
    """Give every command a one-line summary from its docstring's first paragraph.

    Rich help lists a command by that paragraph but keeps its hard line breaks, so a
    docstring wrapped at 100 columns shows ragged lines in ``--help``.
    """
    for info in typer_app.registered_commands:
        summarise(info)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _summarised(group.typer_instance)


def summarise(info: CommandInfo) -> None:
    doc = inspect.getdoc(info.callback) if info.callback else None
    if info.short_help is None and info.help is None and doc:
        info.short_help = " ".join(doc.split("\n\n")[0].split())


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
            _summarised(defined)
            command = typer.main.get_group_from_info(
                TyperInfo(defined, rich_help_panel=unloaded.rich_help_panel),
                pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
                rich_markup_mode=self.rich_markup_mode,
                suggest_commands=self.suggest_commands,
            )
        else:
            # As app.command(name, rich_help_panel=...) registers it, defaults and all.
            registry = typer.Typer()
            registry.command(listed.name, rich_help_panel=unloaded.rich_help_panel)(defined)
            info = registry.registered_commands[0]
            summarise(info)
            command = typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=_PRETTY_EXCEPTIONS_SHORT,
                rich_markup_mode=self.rich_markup_mode,
            )
        if self._escaped:  # else the root escapes it with the rest when it starts
            _tidy_help(command)
        self.commands[listed.name] = command
        return command

    def load_all(self) -> None:
        for command in list(self.commands.values()):
            if isinstance(command, _Unloaded):
                self.load(command)


def whole_tree(app: typer.Typer) -> LazyRoot:
    """``app``'s root with every command built (for the documents and the tests)."""
    root = typer.main.get_command(app)
    assert isinstance(root, LazyRoot)
    root.load_all()
    return root
