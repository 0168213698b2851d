"""The upfront task graph: what each position leads to, subject patterns, roles, deps."""

from __future__ import annotations

import pytest

from ralph.errors import GraphError, InvalidInput
from ralph.graph import (
    ROLE_OF_KIND,
    ReviewMode,
    Role,
    TaskGraph,
    TaskKind,
    TaskSpec,
    build_task_graph,
    split_into_streams,
)
from ralph.pipeline import (
    FileOwnership,
    GroupResult,
    IssueState,
    WorkStream,
    detect_position,
    detect_work_streams,
)


def I(number, state, est="S", subs=0):  # noqa: E743
    return IssueState(number, f"Issue {number}", state, est, subs)


def graph_for(*issues, mode="auto", streams=None):
    numbers = tuple(i.number for i in issues)
    group = GroupResult(numbers, numbers[0], len(numbers) > 1)
    position = detect_position(list(issues), is_group=group.is_group, group_primary=group.primary)
    return build_task_graph(position, group, review_mode=mode, streams=streams)


def shape(graph):
    return [(t.key, list(t.deps)) for t in graph]


def test_a_single_issue_needing_research_gets_the_whole_pipeline():
    graph = graph_for(I(42, "Research Needed"))
    assert shape(graph) == [
        ("research:42", []),
        ("plan:42", ["research:42"]),
        ("review:42", ["plan:42"]),
        ("implement:42", ["review:42"]),
        ("pr:42", ["implement:42"]),
        ("merge:42", ["pr:42"]),
    ]
    assert [t.subject for t in graph] == [
        "Research GH-42",
        "Plan GH-42",
        "Review plan for GH-42",
        "Implement GH-42",
        "Create PR for GH-42",
        "Merge PR for GH-42",
    ]
    assert [t.role for t in graph] == [
        Role.ANALYST,
        Role.BUILDER,
        Role.VALIDATOR,
        Role.BUILDER,
        Role.INTEGRATOR,
        Role.INTEGRATOR,
    ]
    assert graph["research:42"].active_form == "Researching GH-42"


def test_a_group_researches_in_parallel_and_plans_once_after_all_research():
    graph = graph_for(
        I(42, "Research Needed"), I(43, "Research in Progress"), I(44, "Research Needed")
    )
    assert [t.key for t in graph.roots()] == ["research:42", "research:43", "research:44"]
    plan = graph["plan:42"]
    assert plan.subject == "Plan group GH-42"
    assert plan.issues == (42, 43, 44)
    assert plan.deps == ("research:42", "research:43", "research:44")
    assert graph["review:42"].subject == "Review plan for GH-42"
    assert shape(graph)[4:] == [
        ("review:42", ["plan:42"]),
        ("implement:42", ["review:42"]),
        ("implement:43", ["implement:42"]),
        ("implement:44", ["implement:43"]),
        ("pr:42", ["implement:44"]),
        ("merge:42", ["pr:42"]),
    ]
    assert graph["pr:42"].issues == (42, 43, 44)
    assert plan.metadata == {
        "issue_number": 42,
        "command": "plan",
        "group_primary": 42,
        "group_members": [42, 43, 44],
        "estimate": "S",
    }


def test_backlog_issues_are_triaged_before_research():
    graph = graph_for(I(7, "Backlog"))
    assert shape(graph)[:3] == [
        ("triage:7", []),
        ("research:7", ["triage:7"]),
        ("plan:7", ["research:7"]),
    ]
    assert graph["triage:7"].subject == "Triage GH-7"
    assert graph["triage:7"].metadata == {"issue_number": 7, "command": "triage", "estimate": "S"}


def test_an_interactive_review_is_a_human_gate():
    graph = graph_for(I(1, "Ready for Plan"), mode="interactive")
    gate = graph["human_gate:1"]
    assert gate.kind is TaskKind.HUMAN_GATE
    assert gate.role is Role.HUMAN
    assert gate.subject == "Approve plan for GH-1"
    assert graph["implement:1"].deps == ("human_gate:1",)
    assert not graph.of_kind(TaskKind.REVIEW)


def test_skipping_review_goes_from_plan_to_implement():
    graph = graph_for(I(1, "Ready for Plan"), mode=ReviewMode.SKIP)
    assert [t.kind for t in graph] == [
        TaskKind.PLAN,
        TaskKind.IMPLEMENT,
        TaskKind.PR,
        TaskKind.MERGE,
    ]
    assert graph["implement:1"].deps == ("plan:1",)


@pytest.mark.parametrize(
    ("mode", "first"),
    [("auto", "review:1"), ("interactive", "human_gate:1"), ("skip", "implement:1")],
)
def test_plans_awaiting_approval_start_at_the_review_step(mode, first):
    graph = graph_for(I(1, "Plan in Review"), mode=mode)
    assert graph.tasks[0].key == first
    assert graph.tasks[-1].key == "merge:1"
    assert not graph.of_kind(TaskKind.PLAN)


def test_implementation_in_progress_needs_implement_pr_and_merge():
    assert shape(graph_for(I(5, "In Progress"))) == [
        ("implement:5", []),
        ("pr:5", ["implement:5"]),
        ("merge:5", ["pr:5"]),
    ]


def test_issues_in_review_only_need_the_merge():
    graph = graph_for(I(5, "In Review"), I(6, "Done"))
    assert shape(graph) == [("merge:5", [])]
    assert graph["merge:5"].issues == (5,)


@pytest.mark.parametrize("states", [["Done"], ["Done", "Canceled"], ["Human Needed"]])
def test_terminal_positions_have_no_tasks(states):
    assert len(graph_for(*(I(n, s) for n, s in enumerate(states, start=1)))) == 0


def test_oversized_issues_are_split_and_the_plan_waits_for_the_split():
    graph = graph_for(I(41, "Research Needed", "S"), I(42, "Backlog", "M"))
    assert graph["split:42"].subject == "Split GH-42"
    assert graph["split:42"].role is Role.ANALYST
    assert graph["plan:41"].deps == ("research:41", "split:42")
    assert graph["plan:41"].issues == (41,)
    assert "implement:42" not in graph
    assert "research:42" not in graph


def test_finished_members_are_left_out_of_the_work():
    graph = graph_for(I(1, "Ready for Plan"), I(2, "Done"))
    assert graph["plan:1"].issues == (1,)
    assert [t.key for t in graph.of_kind(TaskKind.IMPLEMENT)] == ["implement:1"]


def test_unknown_review_mode_is_refused():
    with pytest.raises(InvalidInput, match="Valid modes: auto, interactive, skip"):
        graph_for(I(1, "Ready for Plan"), mode="sometimes")


def test_workers_match_on_kind_and_role_never_subject():
    # Titles that name other phases must not steer what a task is or who claims it.
    plain = graph_for(I(1, "Backlog"), I(2, "Research Needed"))
    misleading = graph_for(
        IssueState(1, "Implement and merge the PR", "Backlog", "S", 0),
        IssueState(2, "Review plan, then split", "Research Needed", "S", 0),
    )
    assert [(t.key, t.kind, t.role, t.subject) for t in misleading] == [
        (t.key, t.kind, t.role, t.subject) for t in plain
    ]
    assert {t.kind for t in plain} >= {TaskKind.TRIAGE, TaskKind.RESEARCH}
    for task in plain:
        assert task.role is ROLE_OF_KIND[task.kind], task.key


class TestStreams:
    ISSUES = (I(41, "Ready for Plan"), I(42, "Ready for Plan"), I(43, "Ready for Plan"))
    STREAMS = (WorkStream("stream-41-43", (41, 43), (), 41), WorkStream("stream-42", (42,), (), 42))

    def test_each_stream_gets_its_own_chain_with_no_cross_stream_edges(self):
        graph = graph_for(*self.ISSUES, streams=self.STREAMS)
        assert shape(graph) == [
            ("plan:stream-41-43", []),
            ("review:stream-41-43", ["plan:stream-41-43"]),
            ("implement:stream-41-43:41", ["review:stream-41-43"]),
            ("implement:stream-41-43:43", ["implement:stream-41-43:41"]),
            ("pr:stream-41-43", ["implement:stream-41-43:43"]),
            ("merge:stream-41-43", ["pr:stream-41-43"]),
            ("plan:stream-42", []),
            ("review:stream-42", ["plan:stream-42"]),
            ("implement:stream-42:42", ["review:stream-42"]),
            ("pr:stream-42", ["implement:stream-42:42"]),
            ("merge:stream-42", ["pr:stream-42"]),
        ]
        assert graph["plan:stream-41-43"].subject == "Plan stream-41-43"
        assert graph["merge:stream-42"].subject == "Merge PR for stream-42"
        assert graph["plan:stream-41-43"].metadata["stream_members"] == [41, 43]

    def test_every_stream_task_names_its_stream_epic_and_worktree(self):
        whole = graph_for(*self.ISSUES)
        graph = split_into_streams(whole, self.STREAMS, epic=40)
        for task in graph:
            stream = task.metadata["stream_id"]
            assert task.metadata["epic_issue"] == 40
            assert task.metadata["worktree"] == f"GH-40-{stream}"
        # Without an epic the group's primary stands in for it.
        alone = graph_for(*self.ISSUES, streams=self.STREAMS)
        assert alone["pr:stream-42"].metadata["worktree"] == "GH-41-stream-42"

    def test_no_task_of_one_stream_waits_for_another_stream(self):
        graph = graph_for(*self.ISSUES, streams=self.STREAMS)

        def upstream(key):
            seen, todo = set(), [key]
            while todo:
                for dep in graph[todo.pop()].deps:
                    if dep not in seen:
                        seen.add(dep)
                        todo.append(dep)
            return {graph[k].metadata.get("stream_id") for k in seen}

        for task in graph:
            assert upstream(task.key) <= {task.metadata["stream_id"]}

    def test_building_with_streams_equals_splitting_the_group_graph(self):
        whole = graph_for(*self.ISSUES)
        assert split_into_streams(whole, self.STREAMS) == graph_for(
            *self.ISSUES, streams=self.STREAMS
        )

    def test_a_streams_plan_waits_only_for_its_own_research(self):
        issues = [I(n, "Research Needed") for n in (1, 2, 3)]
        streams = detect_work_streams(
            [FileOwnership(1, ("a",)), FileOwnership(2, ("b",)), FileOwnership(3, ("a",))]
        )
        graph = graph_for(*issues, streams=streams)
        assert graph["plan:stream-1-3"].deps == ("research:1", "research:3")
        assert graph["plan:stream-2"].deps == ("research:2",)
        assert [t.key for t in graph.of_kind(TaskKind.RESEARCH)] == [
            "research:1",
            "research:2",
            "research:3",
        ]

    def test_one_stream_leaves_the_graph_alone(self):
        whole = graph_for(*self.ISSUES)
        single = [WorkStream("stream-41-42-43", (41, 42, 43), (), 41)]
        assert split_into_streams(whole, single) is whole

    def test_issues_no_stream_mentions_get_a_stream_of_their_own(self):
        graph = graph_for(*self.ISSUES, streams=[WorkStream("stream-41-42", (41, 42), (), 41)])
        assert "plan:stream-43" in graph
        assert graph["plan:stream-43"].issues == (43,)

    def test_overlapping_streams_are_refused(self):
        overlapping = [
            WorkStream("stream-41-42", (41, 42), (), 41),
            WorkStream("stream-42-43", (42, 43), (), 42),
        ]
        with pytest.raises(GraphError, match="issue #42 is in two streams"):
            graph_for(*self.ISSUES, streams=overlapping)


class TestTaskGraph:
    def spec(self, key, deps=()):
        return TaskSpec(key, TaskKind.RESEARCH, Role.ANALYST, (1,), key, key, tuple(deps))

    def test_duplicate_keys_are_refused(self):
        with pytest.raises(GraphError, match="duplicate task key 'a'"):
            TaskGraph((self.spec("a"), self.spec("a")))

    def test_unknown_dependencies_are_refused(self):
        with pytest.raises(GraphError, match="unknown task"):
            TaskGraph((self.spec("a", ["b"]),))

    def test_cycles_are_refused(self):
        with pytest.raises(GraphError, match="cycle"):
            TaskGraph((self.spec("a", ["b"]), self.spec("b", ["a"])))

    def test_lookups(self):
        graph = TaskGraph((self.spec("a"), self.spec("b", ["a"])))
        assert "a" in graph
        assert graph.keys == ("a", "b")
        assert [t.key for t in graph.dependents("a")] == ["b"]
        with pytest.raises(GraphError, match="no task with key 'z'"):
            graph["z"]

    def test_specs_accept_plain_strings_and_lists(self):
        # Not the annotated types, on purpose: what a caller without mypy may pass.
        spec = TaskSpec("k", "plan", "builder", [1, 2], "Plan", "Planning", ["x"])  # type: ignore[arg-type]
        assert spec.kind is TaskKind.PLAN
        assert spec.role is Role.BUILDER
        assert spec.issues == (1, 2)
        assert spec.deps == ("x",)
        assert spec.to_dict()["activeForm"] == "Planning"


AGENT_KINDS = {
    TaskKind.SPLIT,
    TaskKind.TRIAGE,
    TaskKind.RESEARCH,
    TaskKind.PLAN,
    TaskKind.REVIEW,
    TaskKind.IMPLEMENT,
    TaskKind.CODE_REVIEW,
}


@pytest.mark.parametrize("streamed", [False, True])
def test_every_task_an_agent_does_carries_the_estimate_of_the_issue_it_is_charged_to(streamed):
    """A phase's cost history is by estimate, so every task that runs an agent names
    the estimate of its first issue (the one its charges go to)."""
    issues = [I(41, "Research Needed", "XS"), I(42, "Research Needed", "S"), I(43, "Backlog", "XS")]
    streams = [WorkStream("stream-41-43", (41, 43), (), 41), WorkStream("stream-42", (42,), (), 42)]
    numbers = (41, 42, 43)
    group = GroupResult(numbers, 41, True)
    position = detect_position(issues, is_group=True, group_primary=41)
    graph = build_task_graph(
        position, group, review_mode="auto", streams=streams if streamed else None, review_code=True
    )
    estimates = {i.number: i.estimate for i in issues}
    agents = [t for t in graph if t.kind in AGENT_KINDS]
    assert {t.kind for t in agents} >= {TaskKind.PLAN, TaskKind.IMPLEMENT, TaskKind.CODE_REVIEW}
    for task in agents:
        assert task.metadata.get("estimate") == estimates[task.issues[0]], task.key
