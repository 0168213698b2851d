"""``ralph issue show`` is for copying from: a document's path is never cut (no "…", no
panel border through it) however narrow the terminal, and a history entry keeps its
time and its move on one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .cli_project import farewell_project
from .conftest import RalphCli


@pytest.fixture
def researched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ralph_cli: RalphCli) -> int:
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    code, _, err = ralph_cli("run", "research", str(number))
    assert code == 0, err
    return number


def test_a_document_path_is_shown_whole_on_a_narrow_terminal(
    researched: int, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("COLUMNS", "50")
    code, out, _ = ralph_cli("issue", "show", str(researched))
    assert code == 0
    (line,) = [line for line in out.splitlines() if "Research:" in line]
    path = line.split("Research: ", 1)[1]
    assert re.fullmatch(r"thoughts/shared/research/\S+\.md", path), line
    assert (Path.cwd() / path).is_file()
    assert "…" not in out


def test_a_history_entry_wraps_under_its_move_never_back_under_its_time(
    researched: int, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = ralph_cli("issue", "show", str(researched))
    assert code == 0
    # The history ends the panel (the comments follow below it).
    history = out.split("History", 1)[1].split("╰", 1)[0]
    lines = [line for line in history.splitlines()[1:] if line.strip("│ ")]
    assert len(lines) >= 2
    times = r"│   \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  Research"
    for line in lines:
        assert re.match(times, line) or re.match(r"│ {25}\S", line), line
