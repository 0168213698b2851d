"""The task graph's drawing: columns by depth, edges from each dependency, the critical
path marked, and every text escaped."""

from __future__ import annotations

import re

from ralph.orchestrate import TaskLine
from ralph.web._graph import layout_graph, render_svg


def line(task_id: int, key: str, status: str = "done", subject: str = "") -> TaskLine:
    return TaskLine(
        id=task_id,
        key=key,
        subject=subject or key,
        role="analyst",
        status=status,
        owner=None,
        attempts=1,
        seconds=2.0,
        cost_usd=0.5,
        tokens=10,
        turns=1,
        error=None,
    )


def test_a_task_sits_one_column_right_of_the_deepest_task_it_waits_for() -> None:
    lines = [line(1, "a"), line(2, "b"), line(3, "c"), line(4, "d")]
    layout = layout_graph(lines, {2: [1], 3: [1, 2], 4: []})
    columns = {node.line.key: (node.column, node.row) for node in layout.nodes}
    assert columns == {"a": (0, 0), "b": (1, 0), "c": (2, 0), "d": (0, 1)}
    assert set(layout.edges) == {(1, 2), (1, 3), (2, 3)}
    assert layout.width > layout.height > 0


def test_the_critical_path_and_statuses_are_marked() -> None:
    lines = [line(1, "a"), line(2, "b", "running"), line(3, "c", "pending")]
    svg = render_svg(layout_graph(lines, {2: [1], 3: [2]}), critical={"a", "b"})
    assert re.findall(r'class="task status-(\w+)( critical)?"', svg) == [
        ("done", " critical"),
        ("running", " critical"),
        ("pending", ""),
    ]
    assert svg.count('class="edge critical"') == 1
    assert svg.count('class="edge"') == 1
    assert "done · 2.0s · $0.50" in svg


def test_a_subject_is_escaped_and_shortened_with_its_whole_text_in_the_tooltip() -> None:
    hostile = '<script>alert("x")</script> and a long tail of words'
    svg = render_svg(layout_graph([line(1, "a", subject=hostile)], {}), critical=())
    assert "<script>" not in svg
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; and a long tail of words" in svg
    assert "…</text>" in svg


def test_an_empty_run_draws_an_empty_graph() -> None:
    layout = layout_graph([], {})
    assert layout.nodes == ()
    assert layout.width == layout.height == 24


def test_a_long_pipeline_wraps_into_bands_that_fit_a_laptop_screen() -> None:
    chain = [line(n, f"t{n}") for n in range(1, 13)]
    layout = layout_graph(chain, {n: [n - 1] for n in range(2, 13)})
    assert layout.width <= 1300
    by_key = {node.line.key: node for node in layout.nodes}
    assert (by_key["t5"].x, by_key["t5"].y) > (by_key["t1"].x, by_key["t1"].y)
    assert by_key["t6"].x == by_key["t1"].x
    assert by_key["t6"].y > by_key["t5"].y
    assert layout.height >= by_key["t12"].y + 46
    # The edge into a wrapped task runs back along the gap between the bands.
    assert " V" in render_svg(layout, critical=()).split('class="edge"')[5]


def test_canceled_tasks_come_after_the_live_ones_in_their_column() -> None:
    lines = [line(1, "old", "canceled"), line(2, "new", "pending"), line(3, "next", "pending")]
    layout = layout_graph(lines, {3: [2]})
    rows = {node.line.key: (node.column, node.row) for node in layout.nodes}
    assert rows == {"new": (0, 0), "old": (0, 1), "next": (1, 0)}
