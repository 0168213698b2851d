"""The run report: per task status, time, attempts, cost, tokens (cached input counted
and shown apart), refused tool calls and writes outside the working directory; totals;
the makespan against the critical path; the work streams with their worktrees and how
far each got; what the waiting tasks wait for and when they look again; what needs a
person; and counters that check, from the store's own
history, that the original's coordination failures did not happen.

Built by a pure function from what the store keeps (tasks, events, ledger, messages),
so ``ralph runs show`` prints the same report any time later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ralph.artifacts import UNPLANNED, StreamNames
from ralph.graph import Role, TaskKind
from ralph.orchestrate._dollars import unpriced_of
from ralph.orchestrate._execute import WORKER_BROKE
from ralph.orchestrate._key_waits import key_waits
from ralph.orchestrate._merge_batches import run_batches
from ralph.orchestrate._outcome import Outcome, Tally, is_escalated, run_outcome, tally
from ralph.phases import CONTINUED_ON, FAST_TRACKED
from ralph.runtimes import Activity
from ralph.tasks import (
    Charge,
    Event,
    EventKind,
    MergeBatch,
    Message,
    MessageKind,
    Run,
    Task,
    TaskStatus,
    TaskStore,
)

__all__ = [
    "AttemptLine",
    "BestOfLine",
    "Counters",
    "RunReport",
    "StreamLine",
    "TaskLine",
    "build_report",
    "load_report",
]

_ENDS = frozenset(
    {
        EventKind.TASK_DONE,
        EventKind.TASK_FAILED,
        EventKind.TASK_DEAD,
        EventKind.TASK_RELEASED,
        EventKind.TASK_EXPIRED,
        EventKind.TASK_CANCELED,
        EventKind.TASK_WAITING,
    }
)


@dataclass(frozen=True)
class TaskLine:
    id: int
    key: str
    subject: str
    role: str
    status: str
    owner: str | None
    attempts: int
    #: Seconds spent running, over every attempt.
    seconds: float
    cost_usd: float
    #: Every token, cached input included; the cached part also on its own.
    tokens: int
    turns: int
    error: str | None
    #: When its current attempt started (running tasks), for elapsed times.
    started_at: float | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: Tools its agents were refused, each named once.
    refused: tuple[str, ...] = ()
    #: Where its agents wrote outside their working directory (those attempts failed).
    breaches: tuple[str, ...] = ()
    #: What a person should look at although the task succeeded (files changed that the
    #: plan does not name).
    warnings: tuple[str, ...] = ()
    #: While it waits: what for ("review", "checks (2 pending)"), whether only a person
    #: can end the wait, and when it looks again (seconds since the epoch).
    waiting_for: str | None = None
    for_person: bool = False
    next_check: float | None = None
    #: What its agent is doing or last did (turns, tokens, last tool call, last words).
    activity: Activity | None = None
    #: Whether the XS fast track took its issue, or was refused, or abandoned, and why.
    fast_track: tuple[str, ...] = ()
    #: Where its phase continued on a fallback agent, and why ("Continued on codex: ...").
    continued: tuple[str, ...] = ()
    #: Models its agents used that have no price: its cost is unknown.
    unpriced: tuple[str, ...] = ()


@dataclass(frozen=True)
class AttemptLine:
    """One attempt of best of N, as the report shows it."""

    key: str
    attempt: int
    status: str
    agent: str
    seconds: float
    cost_usd: float
    #: "passed", "failed" or "not run"; "" while the attempt has not ended.
    tests: str
    checks: str
    diff_lines: int
    #: Its place in the score's order (1 is best); 0 until the choice is made.
    rank: int
    won: bool
    problem: str = ""


@dataclass(frozen=True)
class BestOfLine:
    """An implementation done N times: its attempts and why the winner won."""

    key: str
    subject: str
    attempts: tuple[AttemptLine, ...]
    winner: int | None
    #: The choice's reason ("" while the attempts run).
    reason: str


def _best_of(
    tasks: Sequence[Task], seconds: Mapping[int, float], spent: Mapping[int | None, float]
) -> tuple[BestOfLine, ...]:
    lines = []
    for select in tasks:
        if "best_of" not in select.metadata or "best_of_try" in select.metadata:
            continue
        choice = select.metadata.get("best_of_choice") or {}
        ranking = list(choice.get("ranking", []))
        winner = choice.get("winner")
        attempts = []
        for task in tasks:
            if task.key.partition("/try-")[0] != select.key or "best_of_try" not in task.metadata:
                continue
            number = int(task.metadata["best_of_try"])
            result = task.result.get("result", {}) if isinstance(task.result, dict) else {}
            record = result.get("attempt", {}) if isinstance(result, dict) else {}
            problems = record.get("problems") or []
            attempts.append(
                AttemptLine(
                    key=task.key,
                    attempt=number,
                    status=task.status.value,
                    agent=str(record.get("agent") or task.metadata.get("best_of_agent") or ""),
                    seconds=seconds.get(task.id, 0.0),
                    cost_usd=spent.get(task.id, 0.0),
                    tests=str(record.get("tests", "")),
                    checks=(
                        f"{record.get('checks_done', 0)}/{record.get('checks_total', 0)}"
                        if record
                        else ""
                    ),
                    diff_lines=int(record.get("diff_lines", 0)),
                    rank=ranking.index(number) + 1 if number in ranking else 0,
                    won=number == winner,
                    problem=str(problems[0]).splitlines()[0] if problems else "",
                )
            )
        lines.append(
            BestOfLine(
                select.key,
                select.subject,
                tuple(sorted(attempts, key=lambda a: a.attempt)),
                winner if isinstance(winner, int) else None,
                str(choice.get("reason", "")),
            )
        )
    return tuple(lines)


@dataclass(frozen=True)
class StreamLine:
    """One work stream of the run: its issues, where it is built, and how far it got."""

    id: str
    issues: tuple[int, ...]
    worktree: str
    branch: str
    #: Its tasks done, of those not canceled.
    done: int
    total: int
    merged: bool
    #: The first of its tasks not done yet ("" once all are), e.g. "Implement GH-42".
    at: str


def _streams(tasks: Sequence[Task]) -> tuple[StreamLine, ...]:
    """The run's streams, from their tasks' metadata, in the order they were created."""
    members: dict[str, list[Task]] = {}
    for task in tasks:
        stream = task.metadata.get("stream_id")
        if stream:
            members.setdefault(str(stream), []).append(task)
    lines = []
    for stream, own in members.items():
        meta = own[0].metadata
        issues = tuple(int(n) for n in meta.get("stream_members", own[0].issues))
        names = StreamNames.of(int(meta.get("epic_issue", issues[0])), issues)
        worktree = str(meta.get("worktree") or names.worktree)
        live = [t for t in own if t.status is not TaskStatus.CANCELED]
        left = [t for t in live if t.status is not TaskStatus.DONE]
        lines.append(
            StreamLine(
                id=stream,
                issues=issues,
                worktree=worktree,
                branch=f"feature/{worktree}",
                done=len(live) - len(left),
                total=len(live),
                merged=any(
                    t.kind == TaskKind.MERGE.value and t.status is TaskStatus.DONE for t in own
                ),
                at=left[0].subject if left else "",
            )
        )
    return tuple(lines)


@dataclass(frozen=True)
class Counters:
    """Facts that prove the orchestration sound (every one but claims and messages must be
    zero, and messages must all be escalations)."""

    claims: int
    #: Claims of a task while one of its dependencies was not done.
    claimed_while_blocked: int
    #: Claims of a task another worker was still running.
    claimed_while_running: int
    #: Tasks completed more than once.
    completed_twice: int
    messages: int
    escalations: int
    #: Agent turns charged to no phase task (coordination by an agent).
    coordination_turns: int
    #: Claims that ended with their lease running out (the worker died or stalled).
    leases_expired: int = 0
    #: Tasks handed back because their worker broke on them (an exception in its ending).
    worker_broke: int = 0


@dataclass(frozen=True)
class RunReport:
    run: Run
    tasks: tuple[TaskLine, ...]
    cost_usd: float
    tokens: int
    turns: int
    #: Wall time from the first claim to the last end.
    makespan: float
    #: The longest chain of dependent task times: no schedule can beat it.
    critical_path: float
    critical_keys: tuple[str, ...]
    #: Sum of task times (work / workers is the other lower bound).
    work: float
    needs_person: tuple[str, ...]
    counters: Counters
    streams: tuple[StreamLine, ...] = ()
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: Implementations done N times (best of N): each attempt and why the winner won.
    best_of: tuple[BestOfLine, ...] = ()
    #: Seconds tasks sat claimed by a worker that never ended them (until the lease ran
    #: out): in the makespan, never in the work or the critical path, so a stall shows.
    stalled: float = 0.0
    outcome: Outcome = Outcome.RUNNING
    #: The issues its escalated tasks sent to Human Needed, each once, in task order.
    escalated: tuple[int, ...] = ()
    #: Models its agents used that have no price: its cost is unknown.
    unpriced: tuple[str, ...] = ()
    #: The merge trains it conducted or that carried its changes, oldest first
    #: (``ralph runs show --json`` gives them whole, as ``batches``).
    batches: tuple[MergeBatch, ...] = ()

    @property
    def tally(self) -> Tally:
        """Tasks done of those that count (replaced ones left out)."""
        return tally(self.tasks)

    def count(self, status: TaskStatus) -> int:
        return sum(1 for t in self.tasks if t.status == status.value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": {"id": self.run.id, "name": self.run.name, "status": self.run.status.value},
            "outcome": self.outcome.value,
            "done": asdict(self.tally),
            "tasks": [asdict(t) for t in self.tasks],
            "costUsd": self.cost_usd,
            "costKnown": not self.unpriced,
            "unpricedModels": list(self.unpriced),
            "tokens": self.tokens,
            "cacheReadTokens": self.cache_read_tokens,
            "cacheWriteTokens": self.cache_write_tokens,
            "turns": self.turns,
            "makespan": self.makespan,
            "criticalPath": self.critical_path,
            "criticalKeys": list(self.critical_keys),
            "work": self.work,
            "needsPerson": list(self.needs_person),
            "counters": asdict(self.counters),
            "streams": [asdict(stream) for stream in self.streams],
            "bestOf": [asdict(line) for line in self.best_of],
            "stalled": self.stalled,
            "escalated": list(self.escalated),
        }


def _expired(event: Event) -> bool:
    """The claim ended because its lease ran out (or its claimer was found gone)."""
    return event.kind is EventKind.TASK_EXPIRED or bool(event.data.get("expired"))


@dataclass
class _Times:
    #: Seconds each task ran (its claims that ended), stalls left out.
    seconds: dict[int, float]
    #: When each running task's attempt started.
    started: dict[int, float]
    #: First claim to last end.
    makespan: float
    #: Seconds from claims to the expiry of their lease.
    stalled: float


def _running_time(events: Sequence[Event]) -> _Times:
    times = _Times({}, {}, 0.0, 0.0)
    first = last = None
    for event in events:
        if event.task_id is None:
            continue
        if event.kind is EventKind.TASK_CLAIMED:
            times.started[event.task_id] = event.at
            first = event.at if first is None else first
        elif event.kind in _ENDS and event.task_id in times.started:
            spent = event.at - times.started.pop(event.task_id)
            if _expired(event):
                times.stalled += spent
            else:
                times.seconds[event.task_id] = times.seconds.get(event.task_id, 0.0) + spent
            last = event.at
    times.makespan = (last - first) if first is not None and last is not None else 0.0
    return times


def _critical_path(tasks: Sequence[Task], seconds: Mapping[int, float]) -> tuple[float, list[str]]:
    by_id = {t.id: t for t in tasks}
    best: dict[int, tuple[float, list[str]]] = {}
    for task in tasks:  # creation order is topological
        before = max(
            (best[d] for d in task.deps if d in best), key=lambda b: b[0], default=(0.0, [])
        )
        own = seconds.get(task.id, 0.0) if task.status is TaskStatus.DONE else 0.0
        best[task.id] = (before[0] + own, [*before[1], by_id[task.id].key] if own else before[1])
    return max(best.values(), key=lambda b: b[0], default=(0.0, []))


def _counters(
    tasks: Sequence[Task],
    events: Sequence[Event],
    charges: Sequence[Charge],
    messages: Sequence[Message],
) -> Counters:
    deps = {t.id: t.deps for t in tasks}
    done: set[int] = set()
    running: set[int] = set()
    claims = blocked = overlapping = twice = expired = broke = 0
    completions: dict[int, int] = {}
    for event in events:
        task_id = event.task_id
        if task_id is None:
            continue
        expired += _expired(event)
        broke += str(event.data.get("error") or "").startswith(WORKER_BROKE)
        if event.kind is EventKind.TASK_CLAIMED:
            claims += 1
            blocked += any(d not in done for d in deps.get(task_id, ()))
            overlapping += task_id in running
            running.add(task_id)
        elif event.kind in _ENDS:
            running.discard(task_id)
            if event.kind is EventKind.TASK_DONE:
                done.add(task_id)
                completions[task_id] = completions.get(task_id, 0) + 1
                twice += completions[task_id] == 2
        elif event.kind is EventKind.TASK_REOPENED:
            done.discard(task_id)
    roles = {t.id: t.role for t in tasks}
    coordination = sum(
        c.turns for c in charges if c.task_id is None or roles.get(c.task_id) == Role.HUMAN
    )
    return Counters(
        claims=claims,
        claimed_while_blocked=blocked,
        claimed_while_running=overlapping,
        completed_twice=twice,
        messages=len(messages),
        escalations=sum(1 for m in messages if m.kind is MessageKind.ESCALATION),
        coordination_turns=coordination,
        leases_expired=expired,
        worker_broke=broke,
    )


def _warnings(task: Task) -> tuple[str, ...]:
    """The warnings among the lines a finished task's phase said."""
    said = task.result.get("lines", ()) if isinstance(task.result, dict) else ()
    return tuple(str(line) for line in said if str(line).startswith(UNPLANNED))


def _fast_track(task: Task) -> tuple[str, ...]:
    """What its phase said about the XS fast track (a fall back's lines are kept on the
    task it replaced)."""
    said = task.result.get("lines", ()) if isinstance(task.result, dict) else ()
    noted = task.metadata.get("notes", ())
    return tuple(str(line) for line in (*said, *noted) if str(line).startswith(FAST_TRACKED))


def _continued(task: Task) -> tuple[str, ...]:
    """What its phase said about moving to a fallback agent."""
    said = task.result.get("lines", ()) if isinstance(task.result, dict) else ()
    return tuple(str(line) for line in said if str(line).startswith(CONTINUED_ON))


def build_report(
    run: Run,
    tasks: Sequence[Task],
    events: Sequence[Event],
    charges: Sequence[Charge],
    messages: Sequence[Message],
    held_keys: Mapping[int, str] | None = None,
    batches: Sequence[MergeBatch] = (),
) -> RunReport:
    """``held_keys``: what each task ready but for its serialisation key waits for (the
    key's holder, ``key_waits``), shown as what it waits for; ``batches``: the merge
    trains that concern the run (``run_batches``)."""
    held_keys = held_keys or {}
    times = _running_time(events)
    seconds, started = times.seconds, times.started
    spent: dict[int | None, list[Charge]] = {}
    for charge in charges:
        spent.setdefault(charge.task_id, []).append(charge)
    lines = []
    for task in tasks:
        own = spent.get(task.id, [])
        lines.append(
            TaskLine(
                id=task.id,
                key=task.key,
                subject=task.subject,
                role=task.role,
                status=task.status.value,
                owner=task.owner,
                attempts=task.attempts,
                seconds=seconds.get(task.id, 0.0),
                cost_usd=sum(c.usd for c in own),
                tokens=sum(c.tokens for c in own),
                turns=sum(c.turns for c in own),
                error=task.error if task.status is not TaskStatus.DONE else None,
                started_at=started.get(task.id),
                cache_read_tokens=sum(c.cache_read_tokens for c in own),
                cache_write_tokens=sum(c.cache_write_tokens for c in own),
                refused=tuple(dict.fromkeys(tool for c in own for tool in c.refused)),
                breaches=tuple(str(b) for b in task.metadata.get("breaches", ())),
                warnings=_warnings(task),
                fast_track=_fast_track(task),
                continued=_continued(task),
                waiting_for=held_keys.get(task.id, task.waiting_for),
                for_person=task.waiting_for_person,
                next_check=(
                    task.not_before
                    if task.waiting_for is not None and task.id not in held_keys
                    else None
                ),
                activity=Activity.from_dict(task.metadata.get("activity")),
                unpriced=unpriced_of(c.unpriced_model for c in own),
            )
        )
    critical, keys = _critical_path(tasks, seconds)
    person = [m.body for m in messages if m.kind is MessageKind.ESCALATION]
    done_ids = {t.id for t in tasks if t.status is TaskStatus.DONE}
    again = (
        f"`ralph {run.mode} {run.root_issue}` looks again"
        if run.root_issue is not None
        else "run the same command again to look again"
    )
    for task in tasks:
        if task.status is TaskStatus.DEAD:
            person.append(f"{task.subject}: gave up after {task.attempts} attempts: {task.error}")
        if (
            task.role == Role.HUMAN
            and task.status is TaskStatus.PENDING
            and done_ids.issuperset(task.deps)  # before the plan is reviewed, nothing waits
        ):
            number = task.issues[0]
            person.append(
                f"{task.subject}: approve with `ralph approve {number}`, then run the same "
                f"command again to go on"
            )
        if task.waiting_for_person:
            person.append(
                f"{task.subject}: waiting for: {task.waiting_for}; {again} "
                "(--wait keeps it waiting)"
            )
    return RunReport(
        run=run,
        tasks=tuple(lines),
        cost_usd=sum(c.usd for c in charges),
        tokens=sum(c.tokens for c in charges),
        turns=sum(c.turns for c in charges),
        unpriced=unpriced_of(c.unpriced_model for c in charges),
        makespan=times.makespan,
        critical_path=critical,
        critical_keys=tuple(keys),
        work=sum(seconds.values()),
        needs_person=tuple(person),
        counters=_counters(tasks, events, charges, messages),
        streams=_streams(tasks),
        cache_read_tokens=sum(c.cache_read_tokens for c in charges),
        cache_write_tokens=sum(c.cache_write_tokens for c in charges),
        best_of=_best_of(
            tasks, seconds, {key: sum(c.usd for c in own) for key, own in spent.items()}
        ),
        stalled=times.stalled,
        outcome=run_outcome(run, tasks),
        escalated=tuple(
            dict.fromkeys(n for task in tasks if is_escalated(task) for n in task.issues)
        ),
        batches=tuple(batches),
    )


def load_report(store: TaskStore, run_id: int) -> RunReport:
    """The report of a stored run."""
    run, tasks = store.get_run(run_id), store.list_tasks(run_id)
    return build_report(
        run,
        tasks,
        store.events(run_id),
        store.charges(run_id),
        store.messages(run_id),
        key_waits(store, run_id),
        run_batches(store, run, tasks),
    )
