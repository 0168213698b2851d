from __future__ import annotations

from ralph.graph import plan_pipeline
from ralph.pipeline import IssueRelations, IssueState, Stage


def board():
    relations = {
        10: IssueRelations(10, "epic", None, (11, 12, 13)),
        11: IssueRelations(11, "a", 10, (), (), (12,)),
        12: IssueRelations(12, "b", 10, (), (11,), ()),
        13: IssueRelations(13, "c", 10),
    }
    return relations


def states(state):
    return {n: IssueState(n, "", state, "S") for n in (11, 12, 13)}


def test_streams_are_detected_for_a_researched_group_of_three():
    files = {11: ["x"], 12: ["y"], 13: ["z"]}
    plan = plan_pipeline(11, board().get, states("Ready for Plan"), review_mode="auto", files=files)
    assert plan.group.issues == (11, 12, 13)
    assert plan.position.phase is Stage.PLAN
    assert plan.streams is not None
    assert [s.id for s in plan.streams.streams] == ["stream-11-12", "stream-13"]
    assert "plan:stream-11-12" in plan.graph
    # The epic the group was split from names the streams' worktrees.
    assert plan.graph["implement:stream-13:13"].metadata["worktree"] == "GH-10-stream-13"
    assert plan.to_dict()["position"]["suggestedRoster"]["builder"] == 2


def test_no_streams_while_research_is_still_running():
    files = {11: ["x"], 12: ["y"], 13: ["z"]}
    plan = plan_pipeline(
        11, board().get, states("Research Needed"), review_mode="auto", files=files
    )
    assert plan.streams is None
    assert "plan:11" in plan.graph


def test_no_streams_when_some_files_are_unknown():
    plan = plan_pipeline(
        11, board().get, states("Ready for Plan"), review_mode="skip", files={11: ["x"]}
    )
    assert plan.streams is None
    assert plan.to_dict()["streams"] is None


def test_members_without_a_known_state_are_triaged():
    plan = plan_pipeline(13, board().get, {}, review_mode="auto")
    assert plan.position.phase is Stage.TRIAGE
    assert [t.key for t in plan.graph.roots()] == ["triage:11", "triage:12", "triage:13"]
