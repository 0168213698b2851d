"""The merge train's steps, each a function of its state: test the batch, retry a failure
once, halve to the change that breaks it, land the good prefix, send the culprit back."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Sequence

import pytest

from ralph.workflow import (
    Car,
    LandCars,
    RejectCar,
    Rejection,
    TestCars,
    TestRun,
    Train,
    TrainDone,
    after_conflict,
    after_landing,
    after_rejection,
    after_test,
    next_train_step,
    numbered,
)

BASE = "b0"


def _train(n: int) -> Train:
    return Train(BASE, tuple(Car(pr, f"h{pr}", (pr + 100,)) for pr in range(1, n + 1)))


def _ran(train: Train, cars: Sequence[int], passed: bool, summary: str = "") -> Train:
    return after_test(train, TestRun(tuple(cars), train.base, passed, summary))


# -- transition by transition ---------------------------------------------------------------


def test_a_new_train_tests_every_car_at_once():
    assert next_train_step(_train(3)) == TestCars((1, 2, 3))


def test_a_batch_that_passes_lands_whole():
    assert next_train_step(_ran(_train(3), (1, 2, 3), True)) == LandCars((1, 2, 3))


def test_a_batch_that_fails_once_is_run_again_for_a_flaky_test():
    assert next_train_step(_ran(_train(3), (1, 2, 3), False)) == TestCars((1, 2, 3), retry=True)


def test_a_batch_that_passes_on_its_retry_lands():
    train = _ran(_ran(_train(3), (1, 2, 3), False), (1, 2, 3), True)
    assert next_train_step(train) == LandCars((1, 2, 3))


def test_a_batch_that_fails_twice_is_halved():
    train = _ran(_ran(_train(8), range(1, 9), False), range(1, 9), False)
    assert next_train_step(train) == TestCars((1, 2, 3, 4))


def test_a_half_that_passes_moves_the_search_to_the_other_half():
    train = _ran(_ran(_train(8), range(1, 9), False), range(1, 9), False)
    assert next_train_step(_ran(train, range(1, 5), True)) == TestCars((1, 2, 3, 4, 5, 6))


def test_the_good_prefix_lands_before_the_car_after_it_goes_back():
    train = _ran(_ran(_train(3), (1, 2, 3), False), (1, 2, 3), False)
    train = _ran(train, (1,), True)
    assert next_train_step(train) == TestCars((1, 2))
    train = _ran(train, (1, 2), False, "FAILED test_bound")
    assert next_train_step(train) == LandCars((1,))


def test_a_single_car_that_fails_goes_back_without_a_retry():
    train = _ran(_train(1), (1,), False, "AssertionError")
    step = next_train_step(train)
    assert isinstance(step, RejectCar)
    assert step.rejection.pr == 1
    assert step.rejection.head == "h1"
    assert step.rejection.reason.endswith("alone on the base:\nAssertionError")


def test_landing_carries_what_was_learned_to_the_new_base():
    train = _ran(_ran(_train(2), (1, 2), False, "boom"), (1, 2), False, "boom")
    train = _ran(train, (1,), True)
    train = after_landing(train, (1,), "b1")
    assert train.base == "b1"
    assert [car.pr for car in train.pending] == [2]
    step = next_train_step(train)
    assert isinstance(step, RejectCar)
    assert step.rejection.pr == 2
    assert step.rejection.after == (1,)
    assert "after #1 landed" in step.rejection.reason
    assert train.test_runs == 3  # the carried runs cost nothing


def test_landing_only_a_prefix_of_the_pending_cars():
    with pytest.raises(ValueError, match="not a prefix"):
        after_landing(_train(3), (2,), "b1")


def test_a_rejected_car_leaves_the_rest_to_be_tested_again():
    train = _ran(_train(3), (1,), False)
    train = after_rejection(train, Rejection(1, "h1", "broken"))
    assert next_train_step(train) == TestCars((2, 3))


def test_a_car_that_conflicts_with_those_before_it_is_left_out_without_a_test_run():
    train = after_conflict(_train(3), 2, "conflicts with #1 in greet.py")
    assert train.rejected[0].conflict
    assert train.rejected[0].after == (1,)
    assert next_train_step(train) == TestCars((1, 3))
    assert train.test_runs == 0


def test_a_train_with_every_car_landed_or_sent_back_is_done():
    train = after_landing(_ran(_train(2), (1, 2), True), (1, 2), "b1")
    assert next_train_step(train) == TrainDone()


def test_a_train_reads_back_from_its_record():
    train = after_conflict(_ran(_train(3), (1, 2, 3), False, "tail"), 3, "conflict")
    train = after_landing(_ran(train, (1,), True), (1,), "b1")
    assert Train.from_record(train.to_record()) == train


def test_a_car_reads_back_its_issues_as_numbers_and_whether_a_person_accepted_it():
    car = Car.from_record({"pr": "4", "head": "h4", "issues": ["7", 8], "by_person": True})
    assert car == Car(4, "h4", (7, 8), by_person=True)
    assert Car.from_record(car.to_record()) == car


def test_a_car_recorded_before_by_person_was_kept_reads_back_as_not_accepted():
    assert Car.from_record({"pr": 4, "head": "h4"}) == Car(4, "h4")


def test_pull_requests_are_numbered_as_a_person_reads_them():
    assert numbered((3, 1)) == "#3, #1"


# -- whole trains against a test command ----------------------------------------------------

#: Given the cars merged on the base so far (in order), whether the tests pass.
Oracle = Callable[[Sequence[int]], bool]


@dataclasses.dataclass
class Driven:
    train: Train
    #: Each state the base reached: the cars merged on it, in order.
    history: list[Sequence[int]]
    #: For each car sent back, how many test runs the train had taken when it was found.
    found_after: dict[int, int]


def _drive(n: int, passes: Oracle, *, limit: int = 100) -> Driven:
    """Run a train to the end the way the conductor does."""
    train = _train(n)
    on_base: list[int] = []
    history: list[Sequence[int]] = []
    found_after: dict[int, int] = {}
    for _ in range(limit):
        step = next_train_step(train)
        if isinstance(step, TrainDone):
            return Driven(train, history, found_after)
        if isinstance(step, TestCars):
            passed = passes([*on_base, *step.cars])
            train = _ran(train, step.cars, passed, "" if passed else "failed")
        elif isinstance(step, LandCars):
            for pr in step.cars:
                on_base.append(pr)
                history.append(tuple(on_base))
            train = after_landing(train, step.cars, f"b{len(on_base)}")
        else:
            assert isinstance(step, RejectCar)
            train = after_rejection(train, step.rejection)
            found_after[step.rejection.pr] = train.test_runs
    raise AssertionError("the train did not finish")


def test_eight_good_changes_land_in_one_test_run():
    train = _drive(8, lambda cars: True).train
    assert train.landed == tuple(range(1, 9))
    assert train.test_runs == 1


@pytest.mark.parametrize("bad", range(1, 9))
def test_one_bad_change_in_eight_is_found_in_at_most_four_more_runs(bad):
    driven = _drive(8, lambda cars: bad not in cars)
    train = driven.train
    assert [r.pr for r in train.rejected] == [bad]
    assert set(train.landed) == set(range(1, 9)) - {bad}
    # The first run fails; the retry and the halving find the culprit in four more; the
    # cars after it take one more run on the new base.
    assert driven.found_after[bad] <= 1 + 4
    assert train.test_runs <= 1 + 4 + 1


def test_two_changes_that_pass_alone_and_fail_together_never_both_land():
    driven = _drive(2, lambda cars: not {1, 2} <= set(cars))
    train, history = driven.train, driven.history
    assert train.landed == (1,)
    assert [r.pr for r in train.rejected] == [2]
    assert train.rejected[0].after == (1,)
    assert all(not {1, 2} <= set(state) for state in history)


def test_a_flaky_failure_does_not_send_anyone_back():
    flips = itertools.cycle([False, True])
    train = _drive(5, lambda cars: next(flips)).train
    assert train.landed == (1, 2, 3, 4, 5)
    assert train.rejected == ()
    assert train.test_runs == 2


@pytest.mark.parametrize("seed", range(40))
def test_whatever_breaks_nothing_that_lands_was_untested_or_failing(seed):
    """Random batches with bad changes and pairs that fail together: every state the base
    reaches passes the tests, and every good change that fails with nothing lands."""
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    bad = {pr for pr in range(1, n + 1) if rng.random() < 0.2}
    pairs = [rng.sample(range(1, n + 1), 2) for _ in range(rng.randint(0, 2))] if n > 1 else []

    def passes(cars: Sequence[int]) -> bool:
        merged = set(cars)
        return not (merged & bad) and not any(set(pair) <= merged for pair in pairs)

    driven = _drive(n, passes)
    train, history = driven.train, driven.history
    assert all(passes(state) for state in history)
    assert set(train.landed) | {r.pr for r in train.rejected} == set(range(1, n + 1))
    assert not set(train.landed) & bad
