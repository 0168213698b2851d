"""The live view on a terminal: a table of the run's tasks that follows the events."""

from __future__ import annotations

import io

from ralph.cli._console import Console
from ralph.cli._live import LiveView

from .conftest import Demo


def test_on_a_terminal_the_live_table_shows_each_task_with_its_status(demo: Demo):
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    view = LiveView(demo.project.store, demo.project.tracker, console)
    number = demo.issue("farewell")
    with view.showing():
        result = demo.hero(number, observer=view)
    text = out.getvalue()
    assert result.run is not None
    assert f"hero GH-{number} (run {result.run.id})" in text
    assert f"Merge PR for GH-{number}" in text
    assert "✓ done" in text
    assert "6/6 done" in text


def test_off_a_terminal_each_change_is_a_line_with_the_board(demo: Demo):
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    view = LiveView(demo.project.store, demo.project.tracker, console)
    number = demo.issue("farewell")
    demo.hero(number, observer=view)
    lines = out.getvalue().splitlines()
    assert any(f"Research GH-{number} [hero-" in line and "started" in line for line in lines)
    assert any("board: Done 1" in line for line in lines)


def test_the_live_table_says_which_run_and_process_hold_the_merge_a_task_waits_for(demo: Demo):
    from tests.integration.tasks.test_serial_key_queue import gone_owner, merge_run, ready

    store = demo.project.store
    holder, pr, merge = merge_run(store, "hero GH-4")
    ready(store, holder, pr)
    owner = gone_owner()
    store.claim_task(merge.id, owner)
    waiter, pr_waiter, _ = merge_run(store, "hero GH-6")
    ready(store, waiter, pr_waiter)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=200, color_system=None)
    console.print(LiveView(store, demo.project.tracker, console).table(waiter))
    pid = owner.partition(":")[2].partition("/")[0]
    assert f"waiting for: the merge of #1 (run {holder.id}, pid {pid}, gone — taken over now)" in (
        out.getvalue()
    )


def test_off_a_terminal_a_task_waiting_for_a_held_key_is_said_once(demo: Demo):
    from tests.integration.tasks.test_serial_key_queue import merge_run, ready

    store = demo.project.store
    holder, pr, merge = merge_run(store, "hero GH-4")
    ready(store, holder, pr)
    store.claim_task(merge.id, "far-away-box:4321/merge")
    waiter, pr_waiter, _ = merge_run(store, "hero GH-6")
    out = io.StringIO()
    view = LiveView(store, demo.project.tracker, Console(file=out, width=200))
    ready(store, waiter, pr_waiter)
    view(waiter, store.events(waiter.id))
    view(waiter, store.events(waiter.id)[-1:])
    waits = [line for line in out.getvalue().splitlines() if "waiting for: the merge" in line]
    assert len(waits) == 1
    assert f"Subject merge waiting for: the merge of #1 (run {holder.id}, pid 4321 on " in waits[0]
