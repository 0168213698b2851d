"""``--help`` as the help is written, and as plain as gh's.

Typer reads every help text as Rich markup, and Ralph's name ralph.toml's tables in
brackets (``[agent]``, ``[merge]``, ``[debug]``), which markup swallows. So the command
tree's help is escaped on its way to Typer's renderer, once, when the command line
starts; the texts themselves, and docs/cli.md made from them, stay as written.

The same pass makes the parameters plain: no ``<int>``/``<str>``/``<bool>`` type tags
(an option that takes a value shows its metavar, its few choices or its name, as argparse
does: ``--limit LIMIT``; a flag shows nothing), an argument in the usage line
as ``NUMBER`` (``[NUMBER]`` when optional) rather than ``{number}``, and a range only
where it is a person's to know (1 to 8 attempts), not the store's 64-bit limit. And it
converts their values without pydantic where that is plain (``_params``).
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption

from ralph.cli._bounds import MAX_COUNT
from ralph.cli._params import PlainConversion

__all__ = ["HelpAsWritten", "escape_markup"]

#: What click reads to build a command's ``--help`` option: its names (Ralph keeps
#: click's default), so the option can be made, and made plain, with the rest.
_HELP_NAMES = SimpleNamespace(help_option_names=["--help"])
#: An opening or closing markup tag, with the backslashes before it (``rich.markup``'s).
_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")
#: Choices longer than this are named, not listed, where the value goes (its help lists them).
_SHORT_CHOICES = 24


def escape_markup(text: str) -> str:
    """``text`` as Rich markup that shows it as written: ``rich.markup.escape``, whose
    module costs every command Rich's text machinery before it prints anything."""
    text = _TAG.sub(lambda tag: f"{tag[1]}{tag[1]}\\{tag[2]}", text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return text + "\\"
    return text


def _range(low: float | None, high: float | None) -> str | None:
    """A range worth reading: bounded on both sides, and not the store's limit."""
    if low is None or high is None or high >= MAX_COUNT:
        return None
    return f"{low} to {high}"


class _PlainArgument(PlainConversion, TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name if self.nargs == 1 else f"{name}..."

    def _get_number_range_help_str(self) -> str | None:
        return _range(self.min, self.max)


class _PlainOption(PlainConversion, TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        if self.is_flag or self.count:
            return None
        choices = self.display_type(ctx).strip("<>") if self.type_descriptor.is_choice else ""
        if 0 < len(choices) <= _SHORT_CHOICES:
            return choices
        # As argparse names a value: --state STATE.
        return max(self.opts, key=len).lstrip("-").upper().replace("-", "_")

    def _get_number_range_help_str(self) -> str | None:
        return None if self.count else _range(self.min, self.max)


def _plain(param: Any) -> None:
    """``param`` shown plainly: Typer makes the parameters itself and takes no class for
    them, so its class is swapped for the plain one of its kind, which differs only in
    how help shows it and how its value is converted."""
    if type(param) is TyperArgument:
        param.__class__ = _PlainArgument
        if param.metavar is None:
            param.metavar = param.name.upper()
    elif type(param) is TyperOption:
        param.__class__ = _PlainOption


def _tidy_help(command: Any) -> None:
    for name in ("help", "short_help", "epilog"):
        text = getattr(command, name, None)
        if text:
            setattr(command, name, escape_markup(text))
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            param.help = escape_markup(text)
        _plain(param)
    help_option = command.get_help_option(_HELP_NAMES)  # made once, then kept by click
    if help_option is not None:
        _plain(help_option)
    for subcommand in getattr(command, "commands", {}).values():
        _tidy_help(subcommand)


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
            _tidy_help(self)
        return super().make_context(info_name, args, parent, **extra)
