"""``--help`` as the help is written. Typer reads every help text as Rich markup, and
Ralph's name ralph.toml's tables in brackets (``[agent]``, ``[merge]``, ``[debug]``),
which markup swallows. So the command tree's help is escaped on its way to Typer's
renderer, once, when the command line starts; the texts themselves, and
docs/cli.md made from them, stay as written."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from typer.core import TyperGroup

__all__ = ["HelpAsWritten"]


def _escape_help(command: Any) -> None:
    for name in ("help", "short_help", "epilog"):
        text = getattr(command, name, None)
        if text:
            setattr(command, name, escape(text))
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            param.help = escape(text)
    for subcommand in getattr(command, "commands", {}).values():
        _escape_help(subcommand)


class HelpAsWritten(TyperGroup):
    """The root group: the tree under it shows its help as written, brackets and all."""

    _escaped = False

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Any = None,
        **extra: Any,
    ) -> Any:
        # Typer builds a new tree for each call; escaping it twice would show backslashes.
        if not self._escaped:
            self._escaped = True
            _escape_help(self)
        return super().make_context(info_name, args, parent, **extra)
