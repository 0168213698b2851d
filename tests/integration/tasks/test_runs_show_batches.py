"""``ralph runs show`` tells the merge batches that concern a run: those its own merge
conducted and those another run's train carried a change of its issues in, never a
train that carried nothing of it; ``--json`` gives each whole (members, test runs, what
landed, what went back and why, the outcome)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from ralph.tasks import BatchStatus, TaskStore, open_store
from tests.integration.tasks.test_store_contract import spec

REASON = "tests/test_limits.py::test_bound failed on top of #11, #12\nAssertionError: 12 > 10"


def car(pr: int, issue: int) -> dict[str, object]:
    return {"pr": pr, "head": f"{pr:040x}", "issues": [issue]}


def ran(cars: list[int], passed: bool, seconds: float = 2.0) -> dict[str, object]:
    summary = "" if passed else "FAILED tests/test_limits.py::test_bound"
    return {"cars": cars, "base": "b0", "passed": passed, "summary": summary, "seconds": seconds}


@dataclass(frozen=True)
class Seeded:
    #: The run whose merge conducted the first batch (issues 5, 6, 7).
    run: int
    #: Another run, whose train carried a change of issue 5 along.
    other: int
    #: The batches: the run's own, the other run's carrying #5, one carrying nothing of it.
    own: int
    carrying: int
    unrelated: int


def seed_batches(
    store: TaskStore, *, root: int = 5, other_root: int = 40, reason: str = REASON
) -> Seeded:
    """A hero run of ``root`` whose merge conducted a train of three (the last sent
    back with ``reason``), and a team run of ``other_root`` whose trains carried a
    second change of ``root``, and someone else's."""
    run = store.create_run(f"hero GH-{root}", root_issue=root, mode="hero")
    issues = (root, root + 1, root + 2)
    tasks = store.add_tasks(
        run.id,
        [
            spec(f"merge:{n}", role="integrator", serial_key="merge:o/r", issues=(n,))
            for n in issues
        ],
    )
    train: dict[str, object] = {
        "base": "b0",
        "cars": [car(11, issues[0]), car(12, issues[1]), car(13, issues[2])],
        "runs": [ran([11, 12, 13], False), ran([11, 12, 13], False), ran([11, 12], True)],
        "landed": [],
        "rejected": [],
    }
    own = store.open_batch(run.id, tasks[0].id, "o/r", train)
    train |= {
        "landed": [11, 12],
        "rejected": [
            {"pr": 13, "head": f"{13:040x}", "reason": reason, "after": [11, 12], "conflict": False}
        ],
    }
    store.save_batch(own.id, train, BatchStatus.DONE)

    other = store.create_run(f"team GH-{other_root}", root_issue=other_root)
    (conductor,) = store.add_tasks(
        other.id,
        [spec("merge", role="integrator", serial_key="merge:o/r", issues=(other_root,))],
    )
    carrying = store.open_batch(
        other.id,
        conductor.id,
        "o/r",
        {"base": "b1", "cars": [car(20, other_root), car(21, root)], "runs": []},
    )
    store.save_batch(
        carrying.id,
        {
            "base": "b1",
            "cars": [car(20, other_root), car(21, root)],
            "runs": [ran([20, 21], True, 3.0)],
            "landed": [20, 21],
            "rejected": [],
        },
        BatchStatus.DONE,
    )
    unrelated = store.open_batch(
        other.id, conductor.id, "o/r", {"base": "b2", "cars": [car(30, other_root + 1)], "runs": []}
    )
    return Seeded(run.id, other.id, own.id, carrying.id, unrelated.id)


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path}/ralph.db"


@pytest.fixture
def seeded(url) -> Seeded:
    with open_store(url) as store:
        return seed_batches(store)


@pytest.fixture
def ralph(ralph_cli, url):
    return lambda *args: ralph_cli("--store", url, *args)


def test_the_json_gives_each_batch_that_concerns_the_run_whole(ralph, seeded):
    code, out, _ = ralph("runs", "show", str(seeded.run), "--json")
    assert code == 0
    own, carrying = json.loads(out)["batches"]
    assert (own["id"], carrying["id"]) == (seeded.own, seeded.carrying)
    assert own["members"] == [
        {"pr": 11, "issues": [5], "head": f"{11:040x}"},
        {"pr": 12, "issues": [6], "head": f"{12:040x}"},
        {"pr": 13, "issues": [7], "head": f"{13:040x}"},
    ]
    assert own["test_runs"] == 3
    assert own["runs"][0] == {
        "cars": [11, 12, 13],
        "passed": False,
        "seconds": 2.0,
        "summary": "FAILED tests/test_limits.py::test_bound",
    }
    assert own["landed"] == [11, 12]
    assert [(r["pr"], r["reason"]) for r in own["rejected"]] == [(13, REASON)]
    assert own["outcome"] == "landed 2, sent back #13"
    assert (carrying["run"], carrying["outcome"], carrying["test_runs"]) == (
        seeded.other,
        "landed",
        1,
    )


def test_the_other_run_sees_its_own_trains_and_not_the_first_runs(ralph, seeded):
    code, out, _ = ralph("runs", "show", str(seeded.other), "--json")
    assert code == 0
    batches = json.loads(out)["batches"]
    assert [b["id"] for b in batches] == [seeded.carrying, seeded.unrelated]
    assert batches[1]["outcome"] == "running"


def test_the_text_says_each_batch_in_a_line_or_two(ralph, seeded):
    code, out, _ = ralph("runs", "show", str(seeded.run))
    assert code == 0
    assert "Merge batches (2):" in out
    assert (
        f"  Merge batch {seeded.own} (o/r): #11 for #5, #12 for #6, #13 for #7; "
        "3 test runs (6.0s); landed 2, sent back #13\n"
        "    #13 broke it: tests/test_limits.py::test_bound failed on top of #11, #12\n"
    ) in out
    assert (
        f"  Merge batch {seeded.carrying} (o/r), run {seeded.other}'s: #20 for #40, "
        "#21 for #5; 1 test run (3.0s); landed\n"
    ) in out
