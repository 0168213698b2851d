"""The merge train: ready pull requests of one repository tested together and landed in
order, a failing batch retried once and then halved until the change that breaks it is
found. Pure: the state is a value, each step a function of it; the conductor
(``ralph.phases``) builds, tests and merges, and tells the train what happened.

A train holds its cars in landing order over a base commit. Only prefixes of the pending
cars are ever tested, each built on the base as it will land, so whatever lands was tested
on exactly what is under it: ``LandCars`` names a prefix that passed. Bisection keeps the
longest prefix known to pass (``lo``; the base itself passes) and the shortest known to
fail (``hi``); when they are one apart the car between them breaks the tests. The good
prefix lands first, then that car goes back, and the cars after it are a new, shorter
train on the new base. Changes that pass alone and fail together are found the same way,
and the later one goes back: the earlier ones form the passing prefix.

A landed prefix keeps what was learned: a run of ``a, b, c`` on the old base is a run of
``c`` on the new one (the same trees), so the failure that singled out a car is not paid
for again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "Car",
    "LandCars",
    "RejectCar",
    "Rejection",
    "TestCars",
    "TestRun",
    "Train",
    "TrainDone",
    "TrainStep",
    "after_conflict",
    "after_landing",
    "after_rejection",
    "after_test",
    "next_train_step",
    "numbered",
]


@dataclass(frozen=True)
class Car:
    """A pull request ready to merge, at the head commit it was judged ready on."""

    pr: int
    head: str
    #: The issues it closes; the first is the primary.
    issues: tuple[int, ...] = ()

    def to_record(self) -> dict[str, Any]:
        return {"pr": self.pr, "head": self.head, "issues": list(self.issues)}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Car:
        return cls(
            int(record["pr"]), str(record["head"]), tuple(int(n) for n in record.get("issues", ()))
        )


@dataclass(frozen=True)
class TestRun:
    """The test command run once on ``base`` with ``cars`` merged onto it in order."""

    __test__ = False  # not a pytest class, whatever its name

    cars: tuple[int, ...]
    base: str
    passed: bool
    #: The tail of a failing run's output ("" when it passed).
    summary: str = ""
    seconds: float = 0.0
    #: A run on an earlier base carried to this one after a prefix of it landed (the
    #: same trees): known, but no tests ran for it.
    carried: bool = False

    def to_record(self) -> dict[str, Any]:
        return {
            "cars": list(self.cars),
            "base": self.base,
            "passed": self.passed,
            "summary": self.summary,
            "seconds": self.seconds,
            "carried": self.carried,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> TestRun:
        return cls(
            tuple(int(pr) for pr in record["cars"]),
            str(record["base"]),
            bool(record["passed"]),
            str(record.get("summary", "")),
            float(record.get("seconds", 0.0)),
            bool(record.get("carried", False)),
        )


@dataclass(frozen=True)
class Rejection:
    """A car that does not land with this train."""

    pr: int
    head: str
    #: What failed, and on top of which cars: the builder's feedback.
    reason: str
    #: The cars before it in the run that failed (a semantic conflict names them).
    after: tuple[int, ...] = ()
    #: It does not merge cleanly onto the cars before it: left out, not sent back (it is
    #: tried again on the new base, where a conflict with the base is rebased as ever).
    conflict: bool = False

    def to_record(self) -> dict[str, Any]:
        return {
            "pr": self.pr,
            "head": self.head,
            "reason": self.reason,
            "after": list(self.after),
            "conflict": self.conflict,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Rejection:
        return cls(
            int(record["pr"]),
            str(record["head"]),
            str(record["reason"]),
            tuple(int(pr) for pr in record.get("after", ())),
            bool(record.get("conflict", False)),
        )


@dataclass(frozen=True)
class Train:
    """Cars in landing order over the base commit they are tested on, and what happened."""

    base: str
    cars: tuple[Car, ...]
    #: Every test run, in order. The runs on ``base`` that are prefixes of ``pending``
    #: are what the next step is decided from.
    runs: tuple[TestRun, ...] = ()
    landed: tuple[int, ...] = ()
    rejected: tuple[Rejection, ...] = ()

    @property
    def pending(self) -> tuple[Car, ...]:
        gone = set(self.landed) | {r.pr for r in self.rejected}
        return tuple(car for car in self.cars if car.pr not in gone)

    @property
    def test_runs(self) -> int:
        """How many times the tests ran (carried runs cost nothing)."""
        return sum(1 for run in self.runs if not run.carried)

    def car(self, pr: int) -> Car:
        return next(car for car in self.cars if car.pr == pr)

    def to_record(self) -> dict[str, Any]:
        """JSON-able, for the store; ``from_record`` reads it back."""
        return {
            "base": self.base,
            "cars": [car.to_record() for car in self.cars],
            "runs": [run.to_record() for run in self.runs],
            "landed": list(self.landed),
            "rejected": [r.to_record() for r in self.rejected],
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Train:
        return cls(
            str(record["base"]),
            tuple(Car.from_record(car) for car in record.get("cars", ())),
            tuple(TestRun.from_record(run) for run in record.get("runs", ())),
            tuple(int(pr) for pr in record.get("landed", ())),
            tuple(Rejection.from_record(r) for r in record.get("rejected", ())),
        )


# -- what to do next ------------------------------------------------------------------------


@dataclass(frozen=True)
class TestCars:
    """Run the tests on the base with these cars merged onto it in order."""

    __test__ = False

    cars: tuple[int, ...]
    #: The same cars failed once already: this run tells a flaky test from a broken change.
    retry: bool = False


@dataclass(frozen=True)
class LandCars:
    """Merge these cars in order: a prefix of the pending ones that passed on the base."""

    cars: tuple[int, ...]


@dataclass(frozen=True)
class RejectCar:
    rejection: Rejection


@dataclass(frozen=True)
class TrainDone:
    """Every car landed or was left out."""


TrainStep = TestCars | LandCars | RejectCar | TrainDone


def _known(train: Train, pending: Sequence[Car]) -> dict[int, list[TestRun]]:
    """The runs on the current base that tested a prefix of the pending cars, by length."""
    order = tuple(car.pr for car in pending)
    found: dict[int, list[TestRun]] = {}
    for run in train.runs:
        if run.base == train.base and run.cars == order[: len(run.cars)] and run.cars:
            found.setdefault(len(run.cars), []).append(run)
    return found


def next_train_step(train: Train) -> TrainStep:
    pending = train.pending
    if not pending:
        return TrainDone()
    everything = tuple(car.pr for car in pending)
    known = _known(train, pending)
    whole = known.get(len(pending), [])
    if not whole:
        return TestCars(everything)
    if any(run.passed for run in whole):
        return LandCars(everything)
    if len(pending) > 1 and len(whole) == 1:
        return TestCars(everything, retry=True)
    # A prefix passes when any run of it passed (a flaky failure does not make it bad).
    passing = [n for n, runs in known.items() if any(run.passed for run in runs)]
    failing = [n for n, runs in known.items() if not any(run.passed for run in runs)]
    hi = min(failing)
    lo = max([n for n in passing if n < hi], default=0)
    if hi == lo + 1:
        if lo > 0:
            return LandCars(everything[:lo])
        culprit = pending[hi - 1]
        failed = known[hi][-1]
        return RejectCar(_rejection(train, culprit, failed))
    return TestCars(everything[: (lo + hi) // 2])


def _rejection(train: Train, culprit: Car, failed: TestRun) -> Rejection:
    before = failed.cars[: failed.cars.index(culprit.pr)]
    parts = []
    if train.landed:
        parts.append(f"after {numbered(train.landed)} landed")
    if before:
        parts.append(f"on top of {numbered(before)}, which pass without it")
    where = " and ".join(parts) if parts else "alone on the base"
    tail = f":\n{failed.summary}" if failed.summary else "."
    return Rejection(
        culprit.pr,
        culprit.head,
        f"The tests fail with pull request #{culprit.pr} merged {where}{tail}",
        after=(*train.landed, *before),
    )


def numbered(prs: Sequence[int]) -> str:
    """Pull requests as a person reads them: ``#1, #2``."""
    return ", ".join(f"#{pr}" for pr in prs)


# -- what happened --------------------------------------------------------------------------


def after_test(train: Train, run: TestRun) -> Train:
    return replace(train, runs=(*train.runs, run))


def after_landing(train: Train, cars: Sequence[int], new_base: str) -> Train:
    """``cars`` (a prefix of the pending ones) merged, the base now ``new_base``: runs on
    the old base that began with them are runs of the rest on the new one."""
    cars = tuple(cars)
    pending = tuple(car.pr for car in train.pending)
    if pending[: len(cars)] != cars:
        raise ValueError(f"{cars} is not a prefix of the pending cars {pending}")
    carried = tuple(
        replace(run, cars=run.cars[len(cars) :], base=new_base, carried=True)
        for run in train.runs
        if run.base == train.base and run.cars[: len(cars)] == cars and len(run.cars) > len(cars)
    )
    return replace(
        train, base=new_base, runs=(*train.runs, *carried), landed=(*train.landed, *cars)
    )


def after_rejection(train: Train, rejection: Rejection) -> Train:
    return replace(train, rejected=(*train.rejected, rejection))


def after_conflict(train: Train, pr: int, reason: str) -> Train:
    """Car ``pr`` does not merge onto the cars before it: left out of this train."""
    car = train.car(pr)
    before = tuple(c.pr for c in train.pending)
    after = before[: before.index(pr)]
    return after_rejection(train, Rejection(pr, car.head, reason, after=after, conflict=True))
