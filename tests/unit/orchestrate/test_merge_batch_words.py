"""A run's report says each merge batch that concerns it in a line or two: who rode
it, how many test runs it took, what came of it, and which change broke it and why,
as printable text that is never read as markup."""

from __future__ import annotations

import io
from typing import Any

from ralph.cli._console import Console
from ralph.cli._report import print_report
from ralph.orchestrate import batch_words, build_report
from ralph.tasks import BatchStatus, MergeBatch, Run
from ralph.workflow import (
    Car,
    LandCars,
    RejectCar,
    TestCars,
    TestRun,
    Train,
    TrainDone,
    after_landing,
    after_rejection,
    after_test,
    next_train_step,
)

WHY = "tests/test_limits.py::test_bound failed on top of #11, #12\nAssertionError: 12 > 10"


def batch(reason: str = WHY, *, run_id: int = 1, conflict: bool = False, **more: Any) -> MergeBatch:
    cars = [(11, 5), (12, 6), (13, 7)]
    ran = [
        ([11, 12, 13], False, 4.0),
        ([11, 12, 13], False, 4.0),
        ([11], True, 2.0),
        ([11, 12], True, 2.5),
    ]
    train = {
        "base": "b0",
        "cars": [{"pr": pr, "head": f"h{pr}", "issues": [n]} for pr, n in cars],
        "runs": [
            {"cars": c, "base": "b0", "passed": p, "summary": "", "seconds": s, "carried": False}
            for c, p, s in ran
        ],
        "landed": [11, 12],
        "rejected": [
            {"pr": 13, "head": "h13", "reason": reason, "after": [11, 12], "conflict": conflict}
        ],
        **more,
    }
    return MergeBatch(
        id=3, run_id=run_id, task_id=9, repo="o/r", train=train, status=BatchStatus.DONE
    )


def test_a_batch_says_who_rode_it_its_test_runs_and_what_came_of_it() -> None:
    assert batch_words(batch(), 1).lines == (
        "Merge batch 3 (o/r): #11 for #5, #12 for #6, #13 for #7; 4 test runs (12.5s); "
        "landed 2, sent back #13",
        "#13 broke it: tests/test_limits.py::test_bound failed on top of #11, #12",
    )


def test_a_batch_another_run_conducted_names_that_run() -> None:
    words = batch_words(batch(run_id=2), 1)
    assert words.title == "Merge batch 3 (o/r), run 2's"


def test_a_change_left_out_for_a_conflict_is_said_so() -> None:
    words = batch_words(batch("conflicts with #12 in greet.py", conflict=True), 1)
    assert words.why == ("#13 left out (conflict): conflicts with #12 in greet.py",)
    assert words.outcome == "landed 2, left out #13 (conflict)"


def test_a_reason_keeps_no_control_character_and_one_line() -> None:
    (why,) = batch_words(batch("\x1b[2J\x1b]0;owned\x07boom\tthere\nsecond line"), 1).why
    assert "\x1b" not in why
    assert "\x07" not in why
    assert why.endswith("boom there")
    assert "second line" not in why


def test_the_report_prints_the_batches_as_written_never_as_markup() -> None:
    run = Run(id=1, name="hero GH-5", root_issue=5, mode="hero")
    report = build_report(run, [], [], [], [], batches=[batch("[bold]x[/] failed")])
    out = io.StringIO()
    print_report(report, Console(file=out, width=200, highlight=False))
    text = out.getvalue()
    assert "Merge batches (1):\n  Merge batch 3 (o/r): #11 for #5" in text
    assert "    #13 broke it: [bold]x[/] failed\n" in text
    assert report.batches[0].to_dict()["outcome"] == "landed 2, sent back #13"


def test_a_run_without_batches_says_nothing_of_them() -> None:
    run = Run(id=1, name="hero GH-5", root_issue=5, mode="hero")
    out = io.StringIO()
    print_report(build_report(run, [], [], [], []), Console(file=out, width=200))
    assert "Merge batch" not in out.getvalue()


def driven(bad: int, prs: tuple[int, ...] = (11, 12, 13, 14)) -> Train:
    """A train the pure core drove to its end, car ``bad`` breaking the tests."""
    train = Train("b0", tuple(Car(pr, f"h{pr}", (pr - 10,)) for pr in prs))
    landings = 0
    while not isinstance(step := next_train_step(train), TrainDone):
        if isinstance(step, TestCars):
            passed = bad not in step.cars
            summary = "" if passed else "collected 3 items\nE   AssertionError: 12 > 10\n1 failed"
            run = TestRun(step.cars, train.base, passed, summary, 1.5)
            train = after_test(train, run)
        elif isinstance(step, LandCars):
            landings += 1
            train = after_landing(train, step.cars, f"b{landings}")
        else:
            assert isinstance(step, RejectCar)
            train = after_rejection(train, step.rejection)
    return train


def test_a_train_the_core_drove_reads_back_as_it_went() -> None:
    train = driven(bad=13)
    record = MergeBatch(
        id=1, run_id=1, task_id=1, repo="o/r", train=train.to_record(), status=BatchStatus.DONE
    )
    assert Train.from_record(record.train) == train
    assert record.test_runs == train.test_runs
    assert record.landed == [11, 12, 14]
    assert [r["pr"] for r in record.rejected] == [13]
    assert record.outcome == "landed 3, sent back #13"
    (why,) = batch_words(record, 1).why
    # The reason's first line, and what failed in the output it introduces.
    assert why == (
        "#13 broke it: The tests fail with pull request #13 merged after #11, #12 landed: "
        "E AssertionError: 12 > 10"
    )
