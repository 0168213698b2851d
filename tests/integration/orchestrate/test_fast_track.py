"""The XS fast track end to end on the local tracker with the scripted agents: an XS issue
naming its change goes triage -> implement -> PR -> merge; the setting, an epic of three
and a failed implementation keep or send it through the full pipeline."""

from __future__ import annotations

import dataclasses

from ralph.demo._sample import FAREWELL
from ralph.orchestrate import Ending, SessionResult
from ralph.phases import PhaseRunner, PhaseStatus
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import FAST_TRACK_LABEL, FAST_TRACK_SPENT_LABEL, Estimate, WorkflowState

from .conftest import Demo, assert_sound

#: A change whose tests fail: the greeting changes, the test does not.
_BREAKS_TESTS = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return f"Hello, {name}!"
+    return f"Hi, {name}!"
```"""


def _backlog(demo: Demo, body: str, *, parent: int | None = None) -> int:
    return demo.project.tracker.create_issue(
        "Add a farewell function",
        body=body,
        state=WorkflowState.BACKLOG,
        estimate=Estimate.XS,
        parent=parent,
    ).number


def _ended(demo: Demo, result: SessionResult) -> dict[str, list[str]]:
    """The kinds of the run's tasks by how they ended, in order; replaced ones left out."""
    ended: dict[str, list[str]] = {}
    for key, status in demo.statuses(result).items():
        if status != "canceled":
            ended.setdefault(status, []).append(key.partition(":")[0])
    return ended


def _comments(demo: Demo, number: int) -> str:
    return "\n".join(c.body for c in demo.project.tracker.get_issue(number).comments)


def test_an_xs_issue_naming_its_change_goes_from_triage_to_merged_without_research(demo: Demo):
    number = _backlog(demo, f"Add `farewell` to the core module.\n\n{FAREWELL}\n")
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
    assert "def farewell" in demo.on_main("greet/core.py")
    assert _ended(demo, result) == {"done": ["triage", "implement", "pr", "merge"]}
    comments = _comments(demo, number)
    assert "Fast track: XS, and the change is concrete: greet/core.py." in comments
    assert "## Implementation Plan" in comments
    issue = demo.project.tracker.get_issue(number)
    assert FAST_TRACK_LABEL in issue.labels
    plans = demo.project.git.files_on("main", "thoughts/shared/plans")
    assert len(plans) == 1
    assert "fast_track: true" in demo.on_main(plans[0])
    report = demo.report(result)
    assert_sound(report)
    said = [line for task in report.tasks for line in task.fast_track]
    assert said == [
        f"Fast track for #{number}: XS, and the change is concrete: greet/core.py; "
        f"plan {plans[0]}; In Progress."
    ]
    # No research, plan or review agent ran: triage and implementation were the only two.
    assert report.turns == sum(
        t.turns for t in report.tasks if t.key.startswith(("triage", "implement"))
    )


def test_with_the_fast_track_off_the_full_pipeline_runs(demo: Demo):
    config = dataclasses.replace(demo.project.config, fast_track=False)
    demo.project = dataclasses.replace(demo.project, config=config)
    number = _backlog(demo, f"Add `farewell` to the core module.\n\n{FAREWELL}\n")
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
    assert _ended(demo, result) == {
        "done": ["triage", "research", "plan", "review", "implement", "pr", "merge"]
    }
    assert (
        "Fast track refused (proposed: XS, and the issue names its change: greet/core.py.): "
        "the project turned the fast track off (fast_track = false)."
    ) in _comments(demo, number)
    assert FAST_TRACK_LABEL not in demo.project.tracker.get_issue(number).labels


def test_an_xs_member_of_a_three_child_epic_is_never_fast_tracked(demo: Demo):
    epic = demo.project.tracker.create_issue("Say goodbye", estimate=Estimate.M).number
    children = [
        _backlog(demo, f"Add `farewell` to the core module.\n\n{FAREWELL}\n", parent=epic)
        for _ in range(3)
    ]
    outcome = PhaseRunner(demo.project, ScriptedRuntime(env={})).run("triage", children[0])
    assert outcome.status is PhaseStatus.DONE
    assert demo.state(children[0]) is WorkflowState.RESEARCH_NEEDED
    assert (
        "Fast track refused for #"
        f"{children[0]}: its epic has 3 children, which are researched and planned together."
    ) in outcome.lines
    assert "its epic has 3 children" in _comments(demo, children[0])


def test_a_fast_track_whose_tests_fail_goes_to_research_once_then_escalates(demo: Demo):
    number = _backlog(demo, f"Change the greeting in `greet/core.py`.\n\n{_BREAKS_TESTS}\n")
    result = demo.hero(number)
    assert demo.report(result).escalated == (number,)
    assert demo.state(number) is WorkflowState.HUMAN_NEEDED
    # The fast track's implementation was replaced by the full pipeline, which ran once
    # and whose implementation failed for good.
    assert _ended(demo, result) == {
        "done": ["triage", "research", "plan", "review"],
        "failed": ["implement"],
    }
    issue = demo.project.tracker.get_issue(number)
    assert FAST_TRACK_SPENT_LABEL in issue.labels
    assert FAST_TRACK_LABEL not in issue.labels
    comments = _comments(demo, number)
    assert "## Fast Track Abandoned" in comments
    assert comments.count("Escalation:") == 1
    assert demo.project.git.has_branch(f"feature/GH-{number}-fast-track")
    report = demo.report(result)
    assert_sound(report)
    said = [line for task in report.tasks for line in task.fast_track]
    assert (
        f"Fast track abandoned for #{number}: the full pipeline (research, plan, review)." in said
    )
