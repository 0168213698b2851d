"""The parts of ``ralph serve`` a process test cannot steer: the lease per root (held,
refused, taken over once it runs out, given back) and the backoff of a root that keeps
ending without finishing, or waits for a person."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ralph.dashboard import DashboardItem, build_hygiene_report
from ralph.orchestrate import MAX_ROOT_FAILURES, RootRun, ServeResult, SessionResult
from ralph.orchestrate._lead import Ending
from ralph.orchestrate._leases import RootLeases
from ralph.orchestrate._serve import _Backoff, _Verdicts
from ralph.orchestrate._upkeep import hygiene_summary
from ralph.pipeline import BoardQueue, QueuedRoot, QueueTier, Stage
from ralph.tasks import TaskStore, open_store


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> Iterator[TaskStore]:
    with open_store("memory://", clock=clock) as opened:
        yield opened


def test_a_root_leased_by_one_process_is_refused_to_another_until_given_back(store):
    first, second = RootLeases(store, "greet"), RootLeases(store, "greet")
    assert first.take(7)
    assert not second.take(7)
    first.give_back(7)
    assert second.take(7)
    assert second.held == {7}


def test_a_lease_nobody_renews_is_taken_over_once_it_runs_out(store, clock):
    first = RootLeases(store, "greet", lease_seconds=60)
    second = RootLeases(store, "greet", lease_seconds=60)
    assert first.take(7)
    clock.now += 61
    assert second.take(7)
    # The first process's renewal finds the root gone, and its give-back leaves it be.
    first._renewed -= 60
    assert first.renew() == [7]
    first.give_back(7)
    assert not RootLeases(store, "greet").take(7)


def test_the_root_lease_never_meets_a_phase_lock_on_the_same_issue(store):
    store.acquire_issue_lock("greet", 7, "host:1/phase", "token")
    assert RootLeases(store, "greet").take(7)


def _verdicts(said: list[str] | None = None) -> _Verdicts:
    return _Verdicts(30.0, ServeResult(), (said if said is not None else []).append)


def _judged(root: int, endings: list[Ending]) -> tuple[dict[int, _Backoff], ServeResult]:
    verdicts = _verdicts()
    for ending in endings:
        verdicts.judge(RootRun(_queued(root), SessionResult(None, ending, "broke")))
    return verdicts.backoff, verdicts.result


def _queued(root: int, next_phase: str = "triage") -> QueuedRoot:
    stage = Stage(next_phase.upper())
    return QueuedRoot(root, (root,), stage, next_phase, QueueTier.UNSTARTED)


def test_a_failing_root_waits_longer_each_time_and_then_is_left_for_a_person():
    backoff, result = _judged(3, [Ending.BROKEN])
    assert backoff[3].failures == 1
    assert result.given_up == []
    backoff, result = _judged(3, [Ending.BROKEN] * MAX_ROOT_FAILURES)
    assert backoff[3].until == float("inf")
    assert result.given_up == [3]


def test_a_root_that_finishes_and_moves_on_starts_afresh():
    verdicts = _verdicts()
    for ending in (Ending.BROKEN, Ending.OUT_OF_BUDGET, Ending.FINISHED):
        verdicts.judge(RootRun(_queued(3), SessionResult(None, ending, "broke")))
    assert verdicts.may_start(_queued(3, "research"))
    assert verdicts.backoff[3].failures == 0
    assert verdicts.result.given_up == []


def test_a_root_that_finishes_where_it_started_counts_as_failing_and_is_left_for_a_person():
    said: list[str] = []
    verdicts = _verdicts(said)
    for _ in range(MAX_ROOT_FAILURES):
        verdicts.judge(RootRun(_queued(3), SessionResult(None, Ending.FINISHED, "")))
        assert not verdicts.may_start(_queued(3))  # the board shows it at triage again
    assert verdicts.result.given_up == [3]
    assert said[0] == "#3: its session moved nothing; triage is next; trying it again in 60s"
    assert said[-1].endswith("left for a person")


def test_a_finished_root_is_judged_once_by_the_next_read_of_the_board():
    verdicts = _verdicts()
    verdicts.judge(RootRun(_queued(3), SessionResult(None, Ending.FINISHED, "")))
    assert not verdicts.may_start(_queued(3))
    assert verdicts.backoff[3].failures == 1  # a second look the same poll adds nothing
    assert not verdicts.may_start(_queued(3))
    assert verdicts.backoff[3].failures == 1


def test_a_root_waiting_for_a_person_is_looked_at_again_a_poll_later_not_at_once():
    verdicts = _verdicts()
    backoff = verdicts.backoff
    waiting = SessionResult(None, Ending.WAITING_FOR_HUMAN, "", waiting=((3, "review"),))
    before = time.monotonic()
    verdicts.judge(RootRun(_queued(3), waiting))
    assert backoff[3].failures == 0  # waiting is not failing
    assert before + 30.0 <= backoff[3].until <= time.monotonic() + 30.0
    assert verdicts.result.given_up == []
    gate = SessionResult(None, Ending.WAITING_FOR_HUMAN, "", gates=(3,))
    verdicts.judge(RootRun(_queued(3), gate))
    assert backoff == {}  # a plan to approve leaves the board's queue by itself


def test_a_root_with_nothing_to_do_backs_off_as_a_failing_one_does():
    backoff, result = _judged(3, [Ending.NOTHING_TO_DO])
    assert backoff[3].failures == 1
    assert backoff[3].until > time.monotonic() + 30.0  # not started again at once
    backoff, result = _judged(3, [Ending.NOTHING_TO_DO] * MAX_ROOT_FAILURES)
    assert result.given_up == [3]


def test_a_root_the_board_no_longer_shows_as_work_starts_afresh_when_it_comes_back():
    verdicts = _verdicts()
    for _ in range(MAX_ROOT_FAILURES):
        verdicts.judge(RootRun(_queued(3), SessionResult(None, Ending.BROKEN, "broke")))
    verdicts.backoff[4] = _Backoff(failures=1, until=float("inf"))
    verdicts.forget_moved(BoardQueue((_queued(4),)))  # #3 escalated, or is done
    assert (list(verdicts.backoff), verdicts.result.given_up) == ([4], [])


def test_a_note_names_the_root_once():
    said: list[str] = []
    done = RootRun(_queued(3), SessionResult(None, Ending.BROKEN, "#3: the plan is gone"))
    _verdicts(said).judge(done)
    assert said == ["#3: the plan is gone; trying it again in 60s"]


def test_the_hygiene_report_in_the_log_is_one_line_of_counts():
    report = build_hygiene_report(
        [
            DashboardItem(number=1, title="Add alpha", updated_at=3000.0, workflow_state="Backlog"),
            DashboardItem(
                number=2,
                title="Add alpha!",
                updated_at=3000.0,
                workflow_state="Backlog",
                priority="P2",
                estimate="XS",
            ),
        ],
        now=3600.0,
    )
    assert hygiene_summary(report) == (
        "hygiene: 1 without an estimate, 1 without a priority, 1 likely duplicate pair; "
        "`ralph hygiene` lists them"
    )
    assert hygiene_summary(build_hygiene_report([], now=0.0)) == (
        "hygiene: the board is tidy (0 issues)"
    )


def test_a_renewal_releases_locks_whose_lease_ran_out_though_nobody_asks_for_them(store, clock):
    store.acquire_issue_lock("greet", 7, "elsewhere:1/integrator-1", "t", lease_seconds=60)
    leases = RootLeases(store, "greet", lease_seconds=90)
    leases.renew()  # due at once: a service starting releases what a crash left
    assert store.get_issue_lock("greet", 7) is not None  # its lease runs yet
    clock.now += 61
    leases._renewed -= 90
    leases.renew()
    assert store.get_issue_lock("greet", 7) is None
