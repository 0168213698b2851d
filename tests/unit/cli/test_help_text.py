"""What ``ralph --help`` and each group's help list about their commands, and that help
shows as written: ralph.toml's ``[tables]`` are words, not markup."""

from __future__ import annotations

import re
from typing import Any

from typer.core import TyperGroup
from typer.testing import CliRunner

from ralph.cli import app
from ralph.cli._lazy_root import whole_tree


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
    root = whole_tree(app)
    assert isinstance(root, TyperGroup)
    listed = _commands(root)
    assert len(listed) > 30
    for path, command in listed:
        summary = command.short_help or command.help or ""
        assert summary.strip(), f"{path} has no help"
        if not isinstance(command, TyperGroup):
            assert "\n" not in summary, f"{path}'s summary keeps its docstring's line breaks"


def _bracketed(command: Any) -> set[str]:
    """The ``[words]`` of a command's help, its summary's and its parameters' help."""
    texts = [command.help, command.short_help] + [getattr(p, "help", None) for p in command.params]
    return {word for text in texts if text for word in re.findall(r"\[[^\]\s]+\]", text)}


def test_every_help_shows_its_bracketed_words_as_written():
    root = whole_tree(app)
    assert isinstance(root, TyperGroup)
    checked = 0
    for path, command in _commands(root):
        words = _bracketed(command)
        if not words:
            continue
        shown = CliRunner().invoke(app, [*path.split()[1:], "--help"], env={"COLUMNS": "1000"})
        assert shown.exit_code == 0, shown.output
        for word in words:
            assert word in shown.output, f"{path} --help lost {word}"
        checked += 1
    assert checked >= 5  # [agent], [merge], [debug] and [agent.phases.implement] among them
    assert "[debug]" in CliRunner().invoke(app, ["--help"], env={"COLUMNS": "1000"}).output
