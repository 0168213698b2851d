"""What a task ready but for its serialisation key (``merge:<repo>``: one merge per
repository at a time) waits for, in words: the task that holds the key, its run, its
process and whether that process still runs, and the command that resumes the holder's
run when only that (or its lease running out) frees the key."""

from __future__ import annotations

import time

from ralph._process import Holder, holder_is_gone
from ralph.tasks import Run, Task, TaskStore

__all__ = ["key_wait_text", "key_waits"]


def key_waits(store: TaskStore, run_id: int) -> dict[int, str]:
    """Each of the run's tasks that waits for a key held by a running task, with what it
    waits for in words."""
    runs: dict[int, Run] = {}
    said = {}
    now = time.time()
    for task_id, holder in store.key_holders(run_id).items():
        if holder.run_id not in runs:
            runs[holder.run_id] = store.get_run(holder.run_id)
        said[task_id] = key_wait_text(holder, runs[holder.run_id], now=now)
    return said


def key_wait_text(holder: Task, run: Run, *, now: float) -> str:
    """``the merge of #4 (run 3, pid 1234, gone — taken over now)``, or ``the merge of
    #4 (run 3, pid 1234 on box, lease until 14:05:10): `ralph hero 4` resumes it``."""
    what = (holder.serial_key or "").partition(":")[0] or "key"
    of = f" of #{holder.issues[0]}" if holder.issues else ""
    owner = holder.owner or ""
    process = Holder.parse(owner)
    if process.pid is None:
        who = f"run {run.id}, held by {owner or 'nobody'}"
    else:
        who = f"run {run.id}, pid {process.pid}" + ("" if process.here else f" on {process.host}")
    if holder_is_gone(owner):
        return f"the {what}{of} ({who}, gone — taken over now)"
    if process.here:
        return f"the {what}{of} ({who}, running)"
    # Elsewhere: Ralph cannot see that process; its lease says how long it may hold on.
    lease = holder.lease_expires_at
    until = (
        f", lease until {time.strftime('%H:%M:%S', time.localtime(lease))}"
        if lease is not None and lease > now
        else ", lease ran out"
    )
    resume = f": `ralph {run.mode} {run.root_issue}` resumes it" if run.root_issue else ""
    return f"the {what}{of} ({who}{until}){resume}"
