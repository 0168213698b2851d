"""A person who takes an issue off the GitHub board while its research runs stops that
research's agent (``ralph hero`` reads the board for it every 10 seconds while an agent
works, one read for the whole process); the report names the move."""

from __future__ import annotations

import time

import pytest

from ralph.orchestrate import RECONCILE_SECONDS
from ralph.workflow import Estimate, WorkflowState

from ..conftest import spawn_ralph
from ..orchestrate.test_team import wait_until
from .conftest import ralph_on_the_board, tracker_of

pytestmark = pytest.mark.slow


def test_an_issue_taken_off_the_board_while_its_research_runs_stops_that_agent(shop):
    work, _, served = shop
    env = ralph_on_the_board(work, served)
    tracker = tracker_of(served.fake)
    number = tracker.create_issue(
        "Add alpha",
        body="Add the alpha module.",
        estimate=Estimate.XS,
        state=WorkflowState.RESEARCH_NEEDED,
    ).number
    before = len(served.fake.requests)
    started = time.monotonic()
    hero = spawn_ralph(
        "hero", str(number), cwd=work, env={**env, "RALPH_SCRIPTED_FAULTS": "research=hang"}
    )
    try:
        wait_until(
            lambda: tracker.get_issue(number).workflow_state is WorkflowState.RESEARCH_IN_PROGRESS
        )
        board = served.fake.world.accounts["acme"].projects[0]  # a person deletes the card
        (card,) = [i for i in board.item_list if i.content.number == number]
        board.item_list.remove(card)
        card.content.items.remove(card)
        out, err = hero.communicate(timeout=90)
    finally:
        if hero.poll() is None:
            hero.kill()
            hero.communicate(timeout=30)
    elapsed = time.monotonic() - started
    assert hero.returncode == 1, out + err
    said = " ".join(out.split())
    assert (
        f"#{number} was taken off the board by a person while research ran; its agent was stopped"
    ) in said
    # The board is read once per reconciliation period (and once to start), not per task.
    reads = [r.name for r in served.fake.requests[before:]].count("Issues")
    assert 1 <= reads <= 2 + elapsed / RECONCILE_SECONDS
