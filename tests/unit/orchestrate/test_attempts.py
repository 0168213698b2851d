"""Best of N in the task graph: each chain's first implementation becomes N attempts and a
selection that keeps the implement task's key and dependants."""

from __future__ import annotations

from ralph.config import BestOf
from ralph.graph import ReviewMode, TaskKind, build_task_graph
from ralph.orchestrate import with_attempts
from ralph.orchestrate._attempts import best_of_from_config, best_of_to_config
from ralph.pipeline import GroupResult, IssueState, detect_position
from ralph.workflow import WorkflowState


def graph(*numbers: int):
    issues = [IssueState(n, f"#{n}", WorkflowState.READY_FOR_PLAN.value, "XS") for n in numbers]
    group = GroupResult(tuple(numbers), numbers[0], len(numbers) > 1)
    position = detect_position(issues, is_group=len(numbers) > 1, group_primary=numbers[0])
    return build_task_graph(position, group, review_mode=ReviewMode.AUTO)


def test_best_of_one_leaves_the_graph_as_it_is():
    plain = graph(42)
    assert with_attempts(plain, BestOf()) is plain


def test_the_implementation_becomes_attempts_in_parallel_and_a_selection_after_them():
    expanded = with_attempts(graph(42), BestOf(count=3, agents=("claude", "codex:o3")))
    tries = [f"implement:42/try-{k}" for k in (1, 2, 3)]
    for key in tries:
        assert expanded[key].deps == ("review:42",)
        assert expanded[key].kind is TaskKind.IMPLEMENT
    assert expanded["implement:42"].deps == tuple(tries)
    assert expanded["pr:42"].deps == ("implement:42",)
    agents = [expanded[key].metadata["best_of_agent"] for key in tries]
    assert agents == ["claude", "codex:o3", "claude"]  # round robin
    assert expanded["implement:42/try-2"].subject == "Implement GH-42 (try 2 of 3)"
    assert expanded["implement:42"].metadata["best_of_select"] == "score"
    # The longest chains first still puts the attempts before their selection.
    order = expanded.critical_first().keys
    assert all(order.index(key) < order.index("implement:42") for key in tries)


def test_in_a_group_only_the_first_implementation_of_the_chain_is_tried_n_times():
    expanded = with_attempts(graph(1, 2), BestOf(count=2))
    implements = [t.key for t in expanded.of_kind(TaskKind.IMPLEMENT)]
    assert implements == ["implement:1/try-1", "implement:1/try-2", "implement:1", "implement:2"]
    assert expanded["implement:2"].deps == ("implement:1",)


def test_a_run_keeps_its_best_of_for_every_process_that_plans_it_again():
    chosen = BestOf(count=4, agents=("codex",), select="review")
    assert best_of_from_config({"best_of": best_of_to_config(chosen)}, BestOf()) == chosen
    assert best_of_from_config({}, chosen) == chosen  # a run from before it was kept
