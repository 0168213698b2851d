"""A held issue on the web board: its card says "held: budget" (the reason a cap gave,
and the one fix, in its title), it keeps its column (its workflow state stays), and
``/api/board`` lists the holds."""

from __future__ import annotations

import html

import pytest
from starlette.testclient import TestClient

from ralph.project import Project
from ralph.tasks import HoldReason

pytestmark = pytest.mark.slow

DETAIL = "the run's token cap: 120,412 of 100,000 tokens"
LIFT = "raise budget_run_tokens in ralph.toml or run with RALPH_BUDGET_RUN_TOKENS=N"


def test_a_held_card_says_held_budget_with_the_cap_and_the_fix(
    client: TestClient, open_board: Project
) -> None:
    number = open_board.tracker.list_issues()[0].number
    state = open_board.tracker.get_issue(number).workflow_state
    open_board.store.hold_issue(
        open_board.config.repo, number, HoldReason.BUDGET, detail=DETAIL, lift=LIFT
    )
    board = client.get("/?fragment=1").text
    card = board.split(f'id="card-{number}"', 1)[1].split("</article>", 1)[0]
    badge = card.split('class="badge held"', 1)[1].split("</span>", 1)[0]
    assert badge.endswith(">held: budget")
    assert html.unescape(badge.split('title="', 1)[1].split('"', 1)[0]) == f"{DETAIL}; {LIFT}"
    column = board.split(f'id="card-{number}"', 1)[0].rsplit('data-state="', 1)[1]
    assert column.startswith(f'{state}"')
    holds = client.get("/api/board").json()["holds"]
    assert [(h["number"], h["reason"], h["detail"]) for h in holds] == [(number, "budget", DETAIL)]
