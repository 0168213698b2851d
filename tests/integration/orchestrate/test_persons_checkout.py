"""The person's checkout stays theirs while a team works: a run whose output goes to a
file there (``ralph team 1 > run.log``), and a person who edits and builds there meanwhile,
fail no agent's attempt. Every agent run here sees the checkout change under it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ralph.demo import check_demo
from ralph.runtimes import AgentBrief
from ralph.runtimes.scripted import _runtime
from ralph.workflow import WorkflowState

from .conftest import Demo, assert_sound


@pytest.fixture
def person_at_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """While each scripted agent works, the person's checkout changes: the run's log
    grows, and the person edits a tracked file and builds. The phases seen, in order."""
    seen: list[str] = []

    def meddling(phase: str, real: Callable[[AgentBrief], dict[str, Any]]) -> Any:
        def agent(brief: AgentBrief) -> dict[str, Any]:
            repo = Path(brief.facts["repository"])
            seen.append(phase)
            with (repo / "run.log").open("a") as log:
                log.write(f"{phase}: {brief.primary.number}\n")
            (repo / "NOTES.md").write_text(f"the person's notes, {len(seen)}\n")
            (repo / "build").mkdir(exist_ok=True)
            (repo / "build" / f"{len(seen)}.o").write_bytes(b"\0")
            return real(brief)

        return agent

    for phase, real in list(_runtime._AGENTS.items()):
        monkeypatch.setitem(_runtime._AGENTS, phase, meddling(phase, real))
    return seen


def test_a_team_run_logging_into_the_checkout_beside_a_working_person_ends_done(
    demo: Demo, person_at_work: list[str]
):
    (demo.folder / "NOTES.md").write_text("the person's notes\n")
    demo.project.git.run("add", "NOTES.md")
    demo.project.git.run("commit", "-qm", "Notes")
    result = demo.team(demo.epic, per_role=2)
    report = demo.report(result)
    assert_sound(report)
    assert [line.subject for line in report.tasks if line.breaches] == []
    assert report.counters.escalations == 0
    assert not [line.error for line in report.tasks if "working directory" in (line.error or "")]
    assert {"triage", "split", "research", "plan", "review", "implement"} <= set(person_at_work)
    tracker = demo.project.tracker
    issues = [demo.epic, *tracker.get_issue(demo.epic).sub_issues]
    assert {tracker.get_issue(n).workflow_state for n in issues} == {WorkflowState.DONE}
    assert check_demo(demo.project, demo.epic).merged
    # The person's work is as they left it.
    assert (demo.folder / "NOTES.md").read_text() == f"the person's notes, {len(person_at_work)}\n"
    assert len((demo.folder / "run.log").read_text().splitlines()) == len(person_at_work)
