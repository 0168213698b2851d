"""A worker process for the crash tests: claims, "works" a few milliseconds, completes.

Every step goes to an append-only history file (one line per operation, flushed at
once) that the checker reads after the run: ``start T TOKEN`` when a claim is made,
``ok T TOKEN`` when its completion committed, ``fenced T TOKEN`` when the store refused
a stale completion.

With --zombie the worker claims one task, says so, and sleeps before completing, so
the test can SIGSTOP it past its lease.
"""

from __future__ import annotations

import argparse
import random
import time

from ralph.tasks import LeaseLost, TaskStatus, open_store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--run", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--history", required=True)
    parser.add_argument("--lease", type=float, default=1.0)
    parser.add_argument("--work-ms", type=float, default=4.0)
    parser.add_argument("--zombie", action="store_true")
    args = parser.parse_args()

    store = open_store(args.url, lease_seconds=args.lease)
    history = open(args.history, "a", buffering=1)  # noqa: SIM115 - lives as long as the process

    def log(line: str) -> None:
        history.write(line + "\n")
        history.flush()

    cursor = 0
    while True:
        claim = store.claim(args.run, args.name, ["analyst"])
        if claim is None:
            if store.list_tasks(args.run, status=TaskStatus.PENDING) == [] and (
                store.list_tasks(args.run, status=TaskStatus.RUNNING) == []
            ):
                return
            events = store.wait_for_events(args.run, cursor, timeout=0.5)
            if events:
                cursor = events[-1].id
            continue
        log(f"start {claim.task_id} {claim.token}")
        if args.zombie:
            print("claimed", flush=True)
            time.sleep(args.lease * 3)
        else:
            time.sleep(random.uniform(0, args.work_ms) / 1000)
        try:
            store.complete(claim, {"by": args.name})
        except LeaseLost:
            log(f"fenced {claim.task_id} {claim.token}")
            if args.zombie:
                return
            continue
        log(f"ok {claim.task_id} {claim.token}")
        if args.zombie:
            return


if __name__ == "__main__":
    main()
