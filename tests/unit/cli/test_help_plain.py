"""``ralph --help`` and every command's help read as plainly as gh's: no type tags, no
64-bit ranges, arguments named in capitals, commands in panels (everyday ones first,
plumbing last), and shell completion on offer."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from typer.core import TyperGroup
from typer.testing import CliRunner

from ralph.cli import app
from ralph.cli._lazy_root import whole_tree

WIDE = {"COLUMNS": "200"}
ROOT = whole_tree(app)
assert isinstance(ROOT, TyperGroup)


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def _help(*path: str) -> str:
    """``ralph PATH --help`` in-process, on one command tree built once (building it
    takes longer than showing the help)."""
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        ROOT.main([*path, "--help"], prog_name="ralph", standalone_mode=False)
    return shown.getvalue()


def _paths(group: TyperGroup, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        if command.hidden:
            continue
        found.append((*prefix, name))
        if isinstance(command, TyperGroup):
            found.extend(_paths(command, (*prefix, name)))
    return found


def _panels(text: str) -> dict[str, list[str]]:
    """Each panel's title with the first words of its rows, in the order shown."""
    panels: dict[str, list[str]] = {}
    title = ""
    for line in text.splitlines():
        if opened := re.match(r"╭─ (.+?) ─", line):
            title = opened[1]
            panels[title] = []
        elif row := re.match(r"│ (\S+)", line):
            panels[title].append(row[1])
    return panels


PATHS = _paths(ROOT)


def test_no_help_shows_a_type_tag_a_braced_argument_or_the_stores_64_bit_limit():
    assert len(PATHS) > 30
    for path in [(), *PATHS]:
        text = _help(*path)
        assert not re.search(r"<(int|str|bool|float|path|file)[^>]*>", text), (path, text)
        assert "{" not in text.split("\n", 3)[1], f"ralph {' '.join(path)}: {text}"
        assert "9223372036854775807" not in text, path


def test_the_usage_line_names_an_issue_argument_number_in_capitals():
    usage = _help("issue", "show").splitlines()[1].strip()
    assert usage == "Usage: ralph issue show [OPTIONS] NUMBER"
    assert _help("run").splitlines()[1].strip() == "Usage: ralph run [OPTIONS] PHASE [NUMBER]"


def test_a_count_flag_shows_neither_a_type_nor_a_default():
    (verbose,) = [line for line in _help().splitlines() if "--verbose" in line]
    assert re.fullmatch(r"│ --verbose\s+-v\s+More log output \(-vv: debug\)\.\s+│", verbose)


def test_an_option_that_takes_a_value_names_it_and_a_flag_names_none():
    text = _help("issue", "list")
    assert re.search(r"--state\s+-s\s+STATE\s", text)
    assert re.search(r"│ --closed\s+Closed issues instead", text)


def test_a_small_range_a_person_should_know_is_kept():
    assert re.search(r"--best-of\s+BEST_OF \[1 to 8\]", _help("run"))


def test_commands_come_in_panels_everyday_first_and_plumbing_last():
    panels = _panels(_help())
    assert list(panels) == ["Options", "Core commands", "By hand", "Setup and upkeep", "Plumbing"]
    core = panels["Core commands"]
    assert core[:3] == ["demo", "init", "issue"]
    assert {"hero", "run", "loop", "serve", "web", "status", "runs"} <= set(core)
    assert {"approve", "implement", "plan", "idea"} <= set(panels["By hand"])
    assert {"hook", "mcp", "pipeline", "db", "tasks", "worker"} <= set(panels["Plumbing"])
    listed = [name for names in list(panels.values())[1:] for name in names]
    assert sorted(listed) == sorted(p[0] for p in PATHS if len(p) == 1)


def test_shell_completion_is_offered_and_prints_a_script(monkeypatch):
    text = _help()
    assert "--install-completion" in text
    assert "--show-completion" in text
    # Typer names the shell by the processes above this one (make's sh under `make
    # test`): a person at a bash prompt is modelled here, whatever ran the suite.
    monkeypatch.setattr("typer.completion._get_shell_name", lambda: "bash")
    shown = CliRunner().invoke(app, ["--show-completion"], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "_ralph_completion" in shown.output
