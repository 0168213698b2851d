"""The local tracker on SQLite and PostgreSQL, against the in-memory one. Prints medians
and ratios from one run; not a test.

Goal (issue: trackers): a board of 1,000 issues stays interactive: listing it (what
`ralph status` and `ralph issue next` read) well under 100 ms, a state change (check,
compare-and-set, audit comment) in a few milliseconds.

Goal (issue 49): per-issue operations (get, create, set-state) on a board of 10,000
issues within 2x of the same operation on a board of 3, on SQLite and PostgreSQL: every
lookup of one issue's rows uses an index, whatever the board's size.

    make bench-tracker    # or: .venv/bin/python benchmarks/bench_tracker.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.tracker import IssueQuery, LocalTracker, Tracker
from ralph.workflow import Estimate, Priority, WorkflowState

ISSUES = pick(1_000, 30)
#: The small and the large board of the per-issue comparison.
SMALL, LARGE = 3, pick(10_000, 60)
PER_ISSUE_REPEATS = pick(201, 3)
REPEATS = pick(15, 1)
PG_URL = os.environ.get("RALPH_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


def median_ms(action: Callable[[], object], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


@contextmanager
def trackers() -> Iterator[Iterator[tuple[str, Tracker]]]:
    from ralph.db import Database, SqliteDatabase, open_database

    with tempfile.TemporaryDirectory() as folder:
        stores: list[Database] = [SqliteDatabase(Path(folder) / "bench.db")]
        found: list[tuple[str, Tracker]] = [
            ("local-memory", LocalTracker(open_database("memory://"), repo="bench")),
            ("local-sqlite", LocalTracker(stores[0], repo="bench")),
        ]
        schema = None
        try:
            import psycopg

            from ralph.db import PostgresDatabase

            schema = f"bench_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(PG_URL, autocommit=True) as connection:
                connection.execute(f"CREATE SCHEMA {schema}")
            stores.append(PostgresDatabase(f"{PG_URL}?options=-csearch_path%3D{schema}"))
            found.append(("local-postgres", LocalTracker(stores[1], repo="bench")))
        except Exception as exc:  # a benchmark reports what it could measure
            print(f"(PostgreSQL skipped: {exc})", file=sys.stderr)
            schema = None
        try:
            yield iter(found)
        finally:
            for store in stores:
                store.close()
            if schema is not None:
                with psycopg.connect(PG_URL, autocommit=True) as connection:
                    connection.execute(f"DROP SCHEMA {schema} CASCADE")


def fill(tracker: Tracker) -> float:
    """Create the board: epics of ten, each child blocked by its predecessor. Returns
    milliseconds per created issue."""
    start = time.perf_counter()
    parent = None
    for index in range(ISSUES):
        if index % 10 == 0:
            parent = tracker.create_issue(f"Epic {index}", estimate=Estimate.L).number
            continue
        issue = tracker.create_issue(
            f"Issue {index}",
            parent=parent,
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.S,
            priority=list(Priority)[index % 4],
        )
        if index % 10 > 1:
            tracker.add_dependency(issue.number, issue.number - 1)
    return (time.perf_counter() - start) * 1000 / ISSUES


def measure(tracker: Tracker) -> dict[str, float]:
    figures = {"create (ms/issue)": fill(tracker)}
    figures["list all"] = median_ms(lambda: tracker.list_issues(IssueQuery(status=None)))
    figures["pick_actionable"] = median_ms(lambda: tracker.pick_actionable(command="research"))
    figures["get_issue"] = median_ms(lambda: tracker.get_issue(ISSUES // 2))
    candidates = iter(
        i.number for i in tracker.list_issues(IssueQuery(states={WorkflowState.RESEARCH_NEEDED}))
    )
    figures["set_state"] = median_ms(
        lambda: tracker.set_state(next(candidates), "__LOCK__", command="research"), pick(51, 1)
    )
    return figures


def board_of(tracker: Tracker, size: int) -> None:
    """``size`` issues in epics of ten, each child blocked by its predecessor."""
    parent = None
    for index in range(size):
        if index % 10 == 0:
            parent = tracker.create_issue(f"Epic {index}", estimate=Estimate.L).number
            continue
        issue = tracker.create_issue(
            f"Issue {index}", parent=parent, state=WorkflowState.RESEARCH_NEEDED
        )
        if index % 10 > 1:
            tracker.add_dependency(issue.number, issue.number - 1)


def per_issue(small: Tracker, large: Tracker) -> dict[str, tuple[float, float]]:
    """Median ms of each per-issue operation on both boards, interleaved so a change
    in the machine's load falls on both alike."""
    samples: dict[str, tuple[list[float], list[float]]] = {}

    def timed(name: str, side: int, action: Callable[[], object]) -> None:
        start = time.perf_counter()
        action()
        samples.setdefault(name, ([], []))[side].append((time.perf_counter() - start) * 1000)

    # Issues a state change can lock, one per repetition.
    ready = [
        iter(
            [
                t.create_issue("Ready", state=WorkflowState.RESEARCH_NEEDED).number
                for _ in range(PER_ISSUE_REPEATS)
            ]
        )
        for t in (small, large)
    ]
    for _ in range(PER_ISSUE_REPEATS):
        for side, tracker in enumerate((small, large)):
            # An epic's child in the middle of the board: its parent, siblings and both
            # dependency sides are read.
            middle = 2 if side == 0 else LARGE // 2 + 3
            timed("get_issue", side, partial(tracker.get_issue, middle))
            timed(
                "create (child)",
                side,
                partial(tracker.create_issue, "Child", parent=1, estimate=Estimate.XS),
            )
            timed(
                "set_state",
                side,
                partial(tracker.set_state, next(ready[side]), "__LOCK__", command="research"),
            )
    return {
        name: (statistics.median(small_ms), statistics.median(large_ms))
        for name, (small_ms, large_ms) in samples.items()
    }


def compare_sizes() -> None:
    from ralph.db import SqliteDatabase

    print(f"\nPer-issue operations, {SMALL} vs {LARGE:,} issues (median ms, same process)")
    print(f"{'operation':<20}{'backend':<16}{SMALL:>10}{LARGE:>12,}{'ratio':>9}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        backends: list[tuple[str, Callable[[str], Tracker]]] = [
            (
                "local-sqlite",
                lambda name: LocalTracker(SqliteDatabase(Path(folder) / f"{name}.db"), repo=name),
            )
        ]
        with postgres() as make_pg:
            if make_pg is not None:
                backends.append(("local-postgres", make_pg))
            for backend, make in backends:
                small, large = make("small"), make("large")
                board_of(small, SMALL)
                start = time.perf_counter()
                board_of(large, LARGE)
                filled = time.perf_counter() - start
                for name, (small_ms, large_ms) in per_issue(small, large).items():
                    ratio = large_ms / small_ms
                    worst = max(worst, ratio)
                    print(
                        f"{name:<20}{backend:<16}{small_ms:>10.3f}{large_ms:>12.3f}{ratio:>8.2f}x"
                    )
                print(f"{'(filled in)':<20}{backend:<16}{'':>10}{filled:>11.1f}s")
                for tracker in (small, large):
                    assert isinstance(tracker, LocalTracker)
                    tracker.db.close()
    print(
        f"\ngoal: per-issue operations at {LARGE:,} issues <= 2x of {SMALL} -> worst {worst:.2f}x"
    )


@contextmanager
def postgres() -> Iterator[Callable[[str], Tracker] | None]:
    """Trackers in one fresh PostgreSQL schema each, dropped afterwards; None without
    a server."""
    try:
        import psycopg

        from ralph.db import PostgresDatabase

        with psycopg.connect(PG_URL, autocommit=True, connect_timeout=3):
            pass
    except Exception as exc:  # a benchmark reports what it could measure
        print(f"(PostgreSQL skipped: {exc})", file=sys.stderr)
        yield None
        return
    schemas: list[str] = []

    def make(name: str) -> Tracker:
        schema = f"bench_{name}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            connection.execute(f"CREATE SCHEMA {schema}")
        schemas.append(schema)
        return LocalTracker(
            PostgresDatabase(f"{PG_URL}?options=-csearch_path%3D{schema}"), repo=name
        )

    try:
        yield make
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            for schema in schemas:
                connection.execute(f"DROP SCHEMA {schema} CASCADE")


def main() -> None:
    results: dict[str, dict[str, float]] = {}
    with trackers() as found:
        for name, tracker in found:
            results[name] = measure(tracker)
    names = list(results)
    rows = list(results[names[0]])
    print(
        f"Tracker operations on a {ISSUES:,}-issue board "
        "(median ms; ratio to the local tracker in memory)"
    )
    print(f"{'operation':<20}" + "".join(f"{n:>22}" for n in names))
    for row in rows:
        base = results["local-memory"][row]
        cells = "".join(
            f"{results[n][row]:>12.3f} ({results[n][row] / base:>6.1f}x)" for n in names
        )
        print(f"{row:<20}{cells}")
    listing = max(results[n]["list all"] for n in names)
    print(f"\ngoal: list {ISSUES:,} issues under 100 ms -> worst {listing:.1f} ms")
    compare_sizes()


if __name__ == "__main__":
    main()
