"""``ralph plugin``: the Claude Code plugin: where the package keeps it, installing it
through Claude Code's CLI, and what Claude Code then sees."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer
from rich.text import Text

from ralph.cli._console import Console
from ralph.cli._echo import echo

__all__ = ["plugin_app"]

plugin_app = typer.Typer(name="plugin", help="The Claude Code plugin.", no_args_is_help=True)


class Scope(StrEnum):
    """Where Claude Code records the installation (``claude plugin install --scope``)."""

    USER = "user"
    PROJECT = "project"
    LOCAL = "local"


@plugin_app.command("path")
def plugin_path_command() -> None:
    """The plugin folder of the installed package: claude --plugin-dir "$(ralph plugin path)"."""
    from ralph.plugin import plugin_path

    echo(str(plugin_path()))


@plugin_app.command("install")
def plugin_install_command(
    scope: Annotated[
        Scope,
        typer.Option(
            "--scope",
            help="user: every project of yours; project: this repository's "
            ".claude/settings.json (committed); local: this repository, only for you.",
        ),
    ] = Scope.USER,
) -> None:
    """Install the plugin in Claude Code (its `claude plugin marketplace add` and
    `claude plugin install`, with the claude on the PATH or the bundled one), from a copy
    of the packaged plugin that runs this ralph whatever PATH Claude Code starts with.
    Run it again after upgrading Ralph."""
    from ralph.plugin import install_plugin, marketplace_folder

    plugin, ralph = install_plugin(scope.value)
    console = Console(highlight=False, soft_wrap=True)
    console.print(
        Text.assemble(
            ("✓", "green"),
            f" Claude Code has {plugin.plugin_id} {plugin.version} (scope {plugin.scope}), "
            f"from {marketplace_folder()}; its hooks, MCP server and skills run {ralph}.",
        )
    )
    console.print(
        "Next: restart Claude Code (or /reload-plugins in a session), then "
        "/ralph-hero:ralph-setup. ralph plugin check says what Claude Code sees."
    )


@plugin_app.command("check")
def plugin_check_command() -> None:
    """Say whether Claude Code has the plugin (installed, enabled, which version) and
    which ralph, in which version, its hooks and MCP server run; exit 1 with the fix
    when something is wrong."""
    from ralph.plugin import check_plugin

    console = Console(highlight=False, soft_wrap=True)
    checks = check_plugin()
    for check in checks:
        mark = ("✓", "green") if check.ok else ("✗", "red")
        console.print(Text.assemble(mark, " ", check.line))
        if check.fix:
            console.print(f"  {'fix' if not check.ok else 'note'}: {check.fix}")
    if not all(check.ok for check in checks):
        raise typer.Exit(1)
