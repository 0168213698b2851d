"""Best of N's score, case by case: tests pass first, then plan checks ticked, then the
smaller diff, then the lower cost, then the earlier attempt; the reason names what
decided against each loser."""

from __future__ import annotations

import pytest

from ralph.phases import AttemptRecord, rank_attempts, select_attempt


def attempt(n: int, **fields: object) -> AttemptRecord:
    values: dict[str, object] = {
        "finished": True,
        "tests": "passed",
        "checks_done": 2,
        "checks_total": 2,
        "diff_lines": 10,
        "cost_usd": 1.0,
        **fields,
    }
    return AttemptRecord(attempt=n, branch=f"feature/GH-1-try-{n}", **values)  # type: ignore[arg-type]


def test_passing_tests_beat_a_smaller_diff():
    chosen = select_attempt([attempt(1, tests="failed", diff_lines=1), attempt(2, diff_lines=90)])
    assert chosen.winner == 2
    assert "try 1's tests fail" in chosen.reason


def test_more_plan_checks_ticked_beat_a_smaller_diff():
    chosen = select_attempt(
        [attempt(1, checks_done=1, diff_lines=1), attempt(2, checks_done=2, diff_lines=90)]
    )
    assert chosen.winner == 2
    assert "try 1 ticked 1 of 2 plan checks" in chosen.reason


def test_the_smaller_diff_beats_a_lower_cost():
    chosen = select_attempt(
        [attempt(1, diff_lines=40, cost_usd=0.1), attempt(2, diff_lines=4, cost_usd=3.0)]
    )
    assert chosen.winner == 2
    assert "try 1's diff is larger (40 lines)" in chosen.reason


def test_with_the_same_diff_the_cheaper_wins_and_then_the_earlier():
    assert select_attempt([attempt(1, cost_usd=2.0), attempt(2, cost_usd=1.0)]).winner == 2
    tied = select_attempt([attempt(1), attempt(2)])
    assert tied.winner == 1
    assert "try 2 came later with the same score" in tied.reason


def test_an_unknown_cost_is_not_a_low_one_so_cost_decides_nothing_then():
    # Try 2's agent used a model without a price: its $0.00 counts only priced tokens.
    chosen = select_attempt([attempt(1, cost_usd=3.0), attempt(2, cost_usd=0.0, cost_known=False)])
    assert chosen.winner == 1
    assert "try 2 came later with the same score" in chosen.reason
    later = select_attempt([attempt(1, cost_usd=0.0, cost_known=False), attempt(2)])
    assert later.winner == 1
    assert "cost unknown" in later.reason


def test_an_unfinished_attempt_never_wins_even_with_passing_tests():
    unfinished = attempt(1, finished=False, problems=("plan phase(s) 2 not ticked",), diff_lines=1)
    chosen = select_attempt([unfinished, attempt(2, diff_lines=50)])
    assert chosen.winner == 2
    assert "try 1 did not finish (plan phase(s) 2 not ticked)" in chosen.reason


def test_no_winner_when_no_attempt_passes_and_the_reason_names_each():
    chosen = select_attempt(
        [attempt(1, tests="failed"), attempt(2, finished=False, problems=("the agent failed",))]
    )
    assert chosen.winner is None
    assert chosen.reason.startswith("none of the 2 attempts passed its tests and checks")
    assert "try 1" in chosen.reason
    assert "try 2 did not finish (the agent failed)" in chosen.reason
    assert select_attempt([]).winner is None


def test_the_ranking_is_the_whole_order_best_first():
    records = [
        attempt(1, tests="failed"),
        attempt(2, diff_lines=30),
        attempt(3, diff_lines=5),
        attempt(4, diff_lines=5, cost_usd=9.0),
    ]
    assert [r.attempt for r in rank_attempts(records)] == [3, 4, 2, 1]
    assert select_attempt(records).ranking == (3, 4, 2, 1)


@pytest.mark.parametrize("record", [attempt(1), attempt(2, problems=("x",), finished=False)])
def test_a_record_survives_the_store_as_json(record: AttemptRecord):
    assert AttemptRecord.from_dict(record.to_dict()) == record
    assert AttemptRecord.from_dict({**record.to_dict(), "later": 1}) == record
