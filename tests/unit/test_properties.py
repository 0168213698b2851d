"""Properties of the pure core over generated inputs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ralph.graph import ReviewMode, build_task_graph
from ralph.pipeline import (
    FileOwnership,
    GroupResult,
    IssueRelations,
    IssueState,
    detect_group,
    detect_position,
    detect_work_streams,
)
from ralph.workflow import Estimate, WorkflowState


@st.composite
def dependency_dags(draw):
    """Standalone issues 1..n with blocked-by edges that only point backwards in a random
    ranking, so there is never a cycle. Each edge is stored on one or both sides."""
    n = draw(st.integers(min_value=1, max_value=25))
    ranking = draw(st.permutations(list(range(1, n + 1))))
    edges = set()
    for later in range(1, n):
        for earlier in draw(st.lists(st.integers(0, later - 1), max_size=3, unique=True)):
            edges.add((ranking[earlier], ranking[later]))  # (blocker, blocked)
    blocked_by: dict[int, list[int]] = {i: [] for i in range(1, n + 1)}
    blocking: dict[int, list[int]] = {i: [] for i in range(1, n + 1)}
    for blocker, blocked in edges:
        side = draw(st.sampled_from(["both", "blocker", "blocked"]))
        if side in ("both", "blocker"):
            blocking[blocker].append(blocked)
        if side in ("both", "blocked"):
            blocked_by[blocked].append(blocker)
    relations = {
        i: IssueRelations(i, "", None, (), tuple(blocked_by[i]), tuple(blocking[i]))
        for i in range(1, n + 1)
    }
    seed = draw(st.integers(1, n))
    return relations, edges, seed


def reachable(seed, relations):
    """Issues found by following the edges each issue itself lists, in either direction."""
    seen, stack = {seed}, [seed]
    while stack:
        own = relations[stack.pop()]
        for other in (*own.blocked_by, *own.blocking):
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return seen


@given(dependency_dags())
def test_group_order_respects_every_edge_and_closes_over_the_component(case):
    relations, edges, seed = case
    result = detect_group(seed, relations.get)
    members = set(result.issues)
    assert members == reachable(seed, relations)
    index = {n: i for i, n in enumerate(result.issues)}
    for blocker, blocked in edges:
        if blocker in members and blocked in members:
            assert index[blocker] < index[blocked]
    assert result.primary == result.issues[0]
    assert result.is_group == (len(result.issues) > 1)


states = st.one_of(
    st.sampled_from([s.value for s in WorkflowState]),
    st.sampled_from(["", "unknown"]),
    st.none(),
    st.text(max_size=12),
)
estimates = st.one_of(st.sampled_from([e.value for e in Estimate]), st.none(), st.text(max_size=3))
issues = st.lists(
    st.builds(
        IssueState,
        number=st.integers(1, 10_000),
        title=st.text(max_size=5),
        workflow_state=states,
        estimate=estimates,
        sub_issue_count=st.integers(0, 5),
    ),
    max_size=12,
    unique_by=lambda i: i.number,
)


@given(issues, st.booleans(), st.sampled_from(list(ReviewMode)))
def test_position_and_graph_never_raise_on_any_mix_of_states_and_estimates(members, flag, mode):
    primary = members[0].number if members else None
    position = detect_position(members, is_group=flag, group_primary=primary)
    assert position.to_dict()["phase"] == position.phase.value
    if members:
        numbers = tuple(i.number for i in members)
        group = GroupResult(numbers, numbers[0], len(numbers) > 1)
        graph = build_task_graph(position, group, review_mode=mode)  # validates as a DAG
        for task in graph:
            assert set(task.issues) <= set(numbers)


ownership = st.lists(
    st.builds(
        FileOwnership,
        number=st.integers(1, 60),
        files=st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=3).map(tuple),
        blocked_by=st.lists(st.integers(1, 60), max_size=2).map(tuple),
    ),
    max_size=10,
    unique_by=lambda f: f.number,
)


@given(ownership, st.randoms())
def test_stream_ids_do_not_depend_on_input_order(items, random):
    shuffled = list(items)
    random.shuffle(shuffled)
    assert detect_work_streams(items) == detect_work_streams(shuffled)
