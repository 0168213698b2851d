"""What ``ralph --help`` and each group's help list about their commands."""

from __future__ import annotations

from typing import Any

import typer.main
from typer.core import TyperGroup

from ralph.cli import app


def _commands(group: TyperGroup, prefix: str = "ralph") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name, command in group.commands.items():
        if command.hidden:  # old spellings kept working, listed nowhere
            continue
        found.append((f"{prefix} {name}", command))
        if isinstance(command, TyperGroup):
            found.extend(_commands(command, f"{prefix} {name}"))
    return found


def test_every_command_is_listed_by_a_one_line_summary_without_hard_line_breaks():
    root = typer.main.get_command(app)
    assert isinstance(root, TyperGroup)
    listed = _commands(root)
    assert len(listed) > 30
    for path, command in listed:
        summary = command.short_help or command.help or ""
        assert summary.strip(), f"{path} has no help"
        if not isinstance(command, TyperGroup):
            assert "\n" not in summary, f"{path}'s summary keeps its docstring's line breaks"
