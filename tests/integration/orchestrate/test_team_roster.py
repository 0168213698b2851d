"""A team that starts with one worker per role takes more while a role's queue outgrows
them: an epic's children are triaged side by side by analysts the roster hired, the run
ends as a run of the fixed crew would (every issue Done, no lease run out, no worker
broken), and the session says how far each role grew."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending, SessionOptions, load_report, run_session, team_crew
from ralph.project import open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind
from ralph.workflow import Estimate, WorkflowState

from .conftest import assert_sound

pytestmark = pytest.mark.timeout(180)

CHILDREN = 4
#: Each agent's work: long enough that the triages queue behind one analyst.
AGENT_SECONDS = 0.3


def _body(name: str) -> str:
    return (
        f"Add the `{name}` module.\n\n```diff\n--- /dev/null\n+++ b/greet/{name}.py\n"
        f"@@ -0,0 +1 @@\n+NAME = {name!r}\n```\n"
    )


def test_a_teams_roster_grows_with_its_queue_and_the_run_ends_sound(tmp_path: Path):
    repo, number = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        tracker.update_issue(number, estimate=Estimate.L)
        for i in range(CHILDREN):
            child = tracker.create_issue(
                f"Add m{i}", body=_body(f"m{i}"), state=WorkflowState.BACKLOG, estimate=Estimate.XS
            )
            tracker.add_sub_issue(number, child.number)
        crew = team_crew(dict.fromkeys(("analyst", "builder", "validator", "integrator"), 1))
        options = SessionOptions.from_config(project.config, mode="team")
        runtime = ScriptedRuntime(env={}, delay_seconds=AGENT_SECONDS)
        result = run_session(project, number, runtime, options, crew=crew)

        assert result.ending is Ending.FINISHED
        assert result.run is not None
        grown = {line.role: (line.start, line.peak) for line in result.roster}
        assert grown["analyst"][0] == 1
        assert grown["analyst"][1] >= CHILDREN  # a triage per child, side by side
        assert any(name.endswith("/analyst-2") for name in result.workers)
        # Triages ran at once on different workers.
        events = project.store.events(result.run.id)
        tasks = {t.id: t for t in project.store.list_tasks(result.run.id)}
        running, most = set(), 0
        for event in events:
            if event.task_id is None or tasks[event.task_id].kind != "triage":
                continue
            if event.kind is EventKind.TASK_CLAIMED:
                running.add(event.task_id)
                most = max(most, len(running))
            elif event.kind in (EventKind.TASK_DONE, EventKind.TASK_FAILED):
                running.discard(event.task_id)
        assert most >= 2
        report = load_report(project.store, result.run.id)
        assert_sound(report)
        assert (report.counters.leases_expired, report.counters.worker_broke) == (0, 0)
        issues = [number, *tracker.get_issue(number).sub_issues]
        assert {tracker.get_issue(n).workflow_state for n in issues} == {WorkflowState.DONE}
