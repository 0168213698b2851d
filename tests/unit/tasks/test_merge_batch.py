"""A merge batch's record read for people: who rode the train, how many test runs it
took, and what came of it in a few words."""

from __future__ import annotations

from typing import Any

from ralph.tasks import BatchStatus, MergeBatch


def batch(status: BatchStatus = BatchStatus.DONE, **train: Any) -> MergeBatch:
    cars = [{"pr": pr, "head": f"h{pr}", "issues": [pr + 100]} for pr in (1, 2, 3)]
    record = {"base": "b0", "cars": cars, "runs": [], "landed": [], "rejected": []}
    return MergeBatch(
        id=7, run_id=1, task_id=2, repo="o/r", train={**record, **train}, status=status
    )


def run(cars: list[int], passed: bool, **more: Any) -> dict[str, Any]:
    return {"cars": cars, "base": "b0", "passed": passed, "summary": "", "seconds": 2.0, **more}


def sent_back(pr: int, reason: str = "test_x failed", **more: Any) -> dict[str, Any]:
    return {"pr": pr, "head": f"h{pr}", "reason": reason, "after": [], "conflict": False, **more}


def test_the_members_are_the_cars_in_landing_order() -> None:
    assert batch().members == [
        {"pr": 1, "issues": [101], "head": "h1"},
        {"pr": 2, "issues": [102], "head": "h2"},
        {"pr": 3, "issues": [103], "head": "h3"},
    ]


def test_a_run_carried_to_a_new_base_is_not_a_test_run() -> None:
    runs = [run([1, 2, 3], False), run([1], True), run([1], True, carried=True)]
    assert batch(runs=runs).test_runs == 2
    assert [r["cars"] for r in batch(runs=runs).runs] == [[1, 2, 3], [1]]


def test_the_outcome_says_what_landed_and_what_went_back() -> None:
    assert batch(landed=[1, 2, 3]).outcome == "landed"
    assert batch(landed=[1, 2], rejected=[sent_back(3)]).outcome == "landed 2, sent back #3"
    assert batch(rejected=[sent_back(1), sent_back(2)]).outcome == "sent back #1, #2"
    conflict = sent_back(3, conflict=True)
    assert batch(landed=[1, 2], rejected=[conflict]).outcome == "landed 2, left out #3 (conflict)"
    assert batch().outcome == "nothing landed"


def test_an_unfinished_batch_says_so_first() -> None:
    assert batch(BatchStatus.RUNNING).outcome == "running"
    assert batch(BatchStatus.RUNNING, landed=[1]).outcome == "running: landed 1"
    assert batch(BatchStatus.ABANDONED, landed=[1]).outcome == "abandoned: landed 1"


def test_as_json_it_has_the_members_the_runs_and_the_outcome() -> None:
    document = batch(runs=[run([1, 2, 3], True)], landed=[1, 2, 3]).to_dict()
    assert document["id"] == 7
    assert document["test_runs"] == 1
    assert document["runs"] == [{"cars": [1, 2, 3], "passed": True, "seconds": 2.0, "summary": ""}]
    assert document["landed"] == [1, 2, 3]
    assert document["rejected"] == []
    assert document["outcome"] == "landed"
    assert [m["pr"] for m in document["members"]] == [1, 2, 3]
