"""Files the builder commits that its plan does not name (the original's implement
checked its "Will Modify" list) are named, as a warning, by the implementation's lines,
the run's report and the pull request; a builder that keeps to its plan is named by
none of them."""

from __future__ import annotations

import io

from ralph.artifacts import UNPLANNED
from ralph.cli._console import Console
from ralph.cli._report import print_report
from ralph.phases import PhaseRunner
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.runtimes.scripted._builder import UNPLANNED_FILE
from ralph.tracker import PullRequestState
from ralph.workflow import WorkflowState

from .conftest import Demo

WARNING = f"{UNPLANNED}: {UNPLANNED_FILE} (no phase of the plan names them)"


def pull_request_body(demo: Demo) -> str:
    (merged,) = demo.project.code_host.list_pull_requests(state=PullRequestState.MERGED)
    return merged.body


def test_a_file_the_plan_does_not_name_is_reported_and_on_the_pull_request(demo: Demo):
    number = demo.issue("farewell")
    stray = ScriptedRuntime({"implement": [AgentFault.UNPLANNED_FILE]}, env={})
    report = demo.report(demo.hero(number, stray))
    assert demo.state(number) is WorkflowState.DONE  # a warning, not a failure
    implement = next(line for line in report.tasks if line.subject.startswith("Implement"))
    assert implement.warnings == (WARNING,)
    assert all(not line.warnings for line in report.tasks if line is not implement)
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    assert f"! {implement.subject}: {WARNING}" in out.getvalue()
    body = pull_request_body(demo)
    assert f"**{UNPLANNED}** (no phase of the plan names them):\n\n- `{UNPLANNED_FILE}`" in body


def test_ralph_run_implement_says_which_files_the_plan_does_not_name(demo: Demo):
    number = demo.issue("farewell")
    runner = PhaseRunner(
        demo.project, ScriptedRuntime({"implement": [AgentFault.UNPLANNED_FILE]}, env={})
    )
    for phase in ("research", "plan", "review", "implement"):
        outcome = runner.run(phase, number)
        assert outcome.ok, outcome
    assert WARNING in outcome.lines


def test_a_builder_that_keeps_to_its_plan_is_warned_about_nothing(demo: Demo):
    number = demo.issue("farewell")
    report = demo.report(demo.hero(number))
    assert all(not line.warnings for line in report.tasks)
    assert UNPLANNED not in pull_request_body(demo)
