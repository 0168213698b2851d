"""An agent that wrote outside its working directory is named in the run's report, its
live lines and by ``ralph run``, not only in ``ralph tasks show``, even when a later attempt of the
phase succeeded; a run of well-behaved agents, the live store in ``.ralph/`` written all
along, names none."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from ralph.cli import main
from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.cli._report import print_report
from ralph.runtimes import AgentBrief
from ralph.runtimes.scripted import _runtime

from .conftest import Demo

LINE = "the agent wrote outside its working directory: .git/hooks/post-checkout (reverted)"


@pytest.fixture
def planting(monkeypatch) -> None:
    """Research's first agent plants a hook in the repository, then does its work."""
    real = _runtime._AGENTS["research"]
    runs: list[AgentBrief] = []

    def agent(brief: AgentBrief) -> dict[str, Any]:
        runs.append(brief)
        if len(runs) == 1:
            hook = Path(brief.facts["repository"]) / ".git" / "hooks" / "post-checkout"
            hook.write_text("#!/bin/sh\nevil\n")
        return real(brief)

    monkeypatch.setitem(_runtime._AGENTS, "research", agent)


@pytest.mark.usefixtures("planting")
def test_the_run_report_names_a_write_outside_the_worktree(demo: Demo):
    number = demo.issue("farewell")
    lines = io.StringIO()
    view = LiveView(demo.project.store, demo.project.tracker, Console(file=lines, width=200))
    report = demo.report(demo.hero(number, observer=view))
    assert lines.getvalue().count(f"! {LINE}") == 1  # live, once
    research = next(line for line in report.tasks if line.subject.startswith("Research"))
    assert research.status == "done"  # its second attempt stayed inside
    assert research.breaches == (LINE,)
    assert all(not line.breaches for line in report.tasks if line is not research)
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    assert f"! Research GH-{number}: {LINE}" in out.getvalue()
    assert not (demo.folder / ".git" / "hooks" / "post-checkout").exists()


@pytest.mark.usefixtures("planting")
def test_ralph_run_names_a_write_outside_the_worktree(demo: Demo, monkeypatch, capsys):
    number = demo.issue("farewell")
    monkeypatch.chdir(demo.folder)
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as info:
        main(["run", "research", str(number)])
    assert info.value.code in (0, None)
    assert f"! {LINE}" in capsys.readouterr().out


def test_well_behaved_agents_with_the_store_in_the_checkout_breach_nothing(demo: Demo):
    assert (demo.folder / ".ralph" / "ralph.db").exists()  # written all through the run
    number = demo.issue("farewell")
    report = demo.report(demo.hero(number))
    assert all(line.status == "done" for line in report.tasks)
    assert all(not line.breaches and line.attempts == 1 for line in report.tasks)
