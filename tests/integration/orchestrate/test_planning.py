"""Planning a run from the tracker only reads: orchestration plans again at any moment
(after a triage or a split, when a plan is claimed, when a run seems over), in parallel
with the phases writing to the same issues."""

from __future__ import annotations

from datetime import date

from ralph.artifacts import research_path
from ralph.git import commit_files
from ralph.orchestrate import plan_from_tracker
from ralph.workflow import WorkflowState

from .conftest import Demo


def test_planning_reads_a_research_document_not_linked_yet_without_commenting(demo: Demo):
    # The research phase has committed its document and is about to link it: planning
    # must not link it too (two processes doing so posted the same comment twice).
    number = demo.issue("farewell", state=WorkflowState.READY_FOR_PLAN)
    path = research_path(number, "Add a farewell function", date.today())
    text = "# Research\n\n## Files Affected\n\n### Will Modify\n- `greet/core.py`\n"
    commit_files(demo.project.git, "main", {path: text}, "docs(research): by hand")
    plan = plan_from_tracker(demo.project, number, "auto")
    assert plan.graph.keys[0] == f"plan:{number}"
    assert demo.project.tracker.get_issue(number).comments == ()
