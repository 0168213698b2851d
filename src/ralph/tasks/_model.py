"""Records the task store returns. All frozen: a record is a snapshot, never a handle."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.graph import TaskSpec

__all__ = [
    "TERMINAL_STATUSES",
    "BatchStatus",
    "Charge",
    "Claim",
    "Event",
    "EventKind",
    "GraphEdit",
    "Hold",
    "HoldReason",
    "IssueLock",
    "MergeBatch",
    "Message",
    "MessageKind",
    "ProviderWait",
    "Run",
    "RunStatus",
    "Spend",
    "Task",
    "TaskStatus",
]


class TaskStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    #: Failed for good: the work itself said it cannot be done (no retry).
    FAILED = "failed"
    #: Gave up: retries or lease expiries exhausted; the last reason is kept.
    DEAD = "dead"
    CANCELED = "canceled"


TERMINAL_STATUSES = frozenset(
    {TaskStatus.DONE, TaskStatus.FAILED, TaskStatus.DEAD, TaskStatus.CANCELED}
)


class RunStatus(enum.StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    CANCELED = "canceled"


class EventKind(enum.StrEnum):
    TASK_ADDED = "task_added"
    TASK_CLAIMED = "task_claimed"
    TASK_DONE = "task_done"
    #: A failure that will be retried (the task is pending again, after a backoff).
    TASK_FAILED = "task_failed"
    #: A failure that will not be retried: status failed or dead.
    TASK_DEAD = "task_dead"
    TASK_RELEASED = "task_released"
    #: A lease ran out without a heartbeat; the task is pending again (or dead).
    TASK_EXPIRED = "task_expired"
    TASK_CANCELED = "task_canceled"
    TASK_REOPENED = "task_reopened"
    #: Handed back to wait for something outside Ralph (checks, a review), not before a
    #: wake-up time; no attempt is charged. ``data`` says what it waits for.
    TASK_WAITING = "task_waiting"
    #: A waiting task made claimable now (what it waits for may have changed).
    TASK_WOKEN = "task_woken"
    #: What a running task's agent is doing changed (its turns, tokens, last tool call):
    #: kept on the task as ``metadata["activity"]``; ``data["summary"]`` says it in a line.
    TASK_ACTIVITY = "task_activity"
    #: A serialisation key (``merge:<repo>``) a running task of another run held is free:
    #: appended to each run with a task pending on that key, so its workers look at once.
    #: ``data["key"]`` names the key; ``task_id`` is None.
    KEY_FREED = "key_freed"
    RUN_FINISHED = "run_finished"
    SHUTDOWN_REQUESTED = "shutdown_requested"
    MESSAGE = "message"


class MessageKind(enum.StrEnum):
    ESCALATION = "escalation"
    QUESTION = "question"
    ANSWER = "answer"


@dataclass(frozen=True, kw_only=True)
class Run:
    """One hero or team invocation; it owns a graph of tasks."""

    id: int
    name: str
    root_issue: int | None
    mode: str
    config: Mapping[str, Any] = field(default_factory=dict, hash=False)
    status: RunStatus = RunStatus.ACTIVE
    shutdown_requested: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Task:
    id: int
    run_id: int
    key: str
    kind: str
    role: str
    issues: tuple[int, ...]
    subject: str
    active_form: str = ""
    description: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    status: TaskStatus = TaskStatus.PENDING
    #: While running: the claimer. While pending: the worker it is assigned to, if any.
    owner: str | None = None
    #: The fencing token: bumped by every claim, never reset.
    claim_token: int = 0
    attempts: int = 0
    max_attempts: int = 3
    lease_expires_at: float | None = None
    #: Not claimable before this time (retry backoff).
    not_before: float = 0.0
    serial_key: str | None = None
    result: Any = field(default=None, hash=False)
    error: str | None = None
    #: Ids of the tasks this one waits for.
    deps: tuple[int, ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def waiting_for(self) -> str | None:
        """What the task waits for ("review", "checks (2 pending)") while it waits: it
        was deferred and nobody has claimed it since (every claim bumps the token the
        deferral noted). None otherwise."""
        meta = self.metadata
        if self.status is not TaskStatus.PENDING or meta.get("waiting_token") != self.claim_token:
            return None
        reason = meta.get("waiting_for")
        return str(reason) if reason else None

    @property
    def waiting_for_person(self) -> bool:
        """Waiting, and for a person (a review, a merge) rather than for something that
        ends by itself (checks running)."""
        return self.waiting_for is not None and bool(self.metadata.get("for_person"))

    def to_dict(self) -> dict[str, Any]:
        """The task as JSON for people and tools (camelCase, like the original)."""
        return {
            "id": self.id,
            "run": self.run_id,
            "key": self.key,
            "kind": self.kind,
            "role": self.role,
            "issues": list(self.issues),
            "subject": self.subject,
            "status": self.status.value,
            "owner": self.owner,
            "attempts": self.attempts,
            "maxAttempts": self.max_attempts,
            "claimToken": self.claim_token,
            "leaseExpiresAt": self.lease_expires_at,
            "notBefore": self.not_before,
            "waitingFor": self.waiting_for,
            "forPerson": self.waiting_for_person,
            "deps": list(self.deps),
            "metadata": dict(self.metadata),
            "result": self.result,
            "error": self.error,
        }


@dataclass(frozen=True, kw_only=True)
class Claim:
    """Proof of ownership: every later write about the task must present it."""

    task: Task
    token: int
    worker: str

    @property
    def task_id(self) -> int:
        return self.task.id


@dataclass(frozen=True, kw_only=True)
class Event:
    id: int
    run_id: int
    kind: EventKind
    task_id: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)
    at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Message:
    id: int
    run_id: int
    sender: str
    recipient: str
    kind: MessageKind
    body: str
    read: bool = False
    created_at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class IssueLock:
    repo: str
    number: int
    owner: str
    token: str
    acquired_at: float
    expires_at: float


@dataclass(frozen=True, kw_only=True)
class GraphEdit:
    """A rewrite of a run's graph applied in the same transaction as the end of the
    claimed task that caused it: ``cancel`` names pending tasks the new shape replaces,
    ``add`` the tasks that replace them (they may depend on existing tasks)."""

    add: tuple[TaskSpec, ...] = ()
    cancel: tuple[int, ...] = ()
    reason: str = ""

    def __bool__(self) -> bool:
        return bool(self.add or self.cancel)


@dataclass(frozen=True, kw_only=True)
class Charge:
    """What one agent run cost: a line of the budget ledger."""

    id: int
    run_id: int
    task_id: int | None
    usd: float
    #: Every token the model counted: input, output and cached input.
    tokens: int = 0
    turns: int = 0
    seconds: float = 0.0
    at: float = 0.0
    #: Input tokens read from the prompt cache, and written to it (part of ``tokens``).
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: Tool calls the agent was refused, by tool name.
    refused: tuple[str, ...] = ()
    #: A model the agent used that Ralph has no price for: ``usd`` is then not the
    #: whole cost, which is unknown.
    unpriced_model: str = ""
    #: The issue the run worked on (the task's first), of ``repo``; None: no issue.
    repo: str = ""
    issue: int | None = None
    #: The agent CLI that ran (``claude``, ``codex``, ...), the phase and the issue's
    #: estimate (``XS``...; "" unknown).
    agent: str = ""
    phase: str = ""
    estimate: str = ""


@dataclass(frozen=True, kw_only=True)
class Spend:
    """What a set of ledger lines adds up to: dollars, tokens and agent sessions (one
    agent run is one session)."""

    usd: float = 0.0
    tokens: int = 0
    sessions: int = 0


class HoldReason(enum.StrEnum):
    #: A token, session or dollar cap was reached (or what is left cannot pay for the
    #: phase, by its history).
    BUDGET = "budget"
    #: It spent more than allowed since it last moved forward on the board.
    NO_PROGRESS = "no progress"


@dataclass(frozen=True, kw_only=True)
class Hold:
    """An issue Ralph stopped spending on until a person lifts the hold: no task of it
    starts. The board says "held: REASON"; ``detail`` says which cap and how much was
    spent, ``lift`` the one command that lifts or raises it."""

    repo: str
    number: int
    reason: HoldReason
    detail: str
    lift: str
    run_id: int | None = None
    at: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ProviderWait:
    """An agent CLI whose provider refuses for now (a rate limit, a usage window): its
    work waits until ``until`` (epoch seconds); ``said`` is what the provider said."""

    agent: str
    until: float
    said: str = ""
    at: float = 0.0


class BatchStatus(enum.StrEnum):
    #: Its conductor is at work, or died at work: the next conductor of the repository
    #: takes it over.
    RUNNING = "running"
    DONE = "done"
    #: Given up without finishing: nothing more of it will land.
    ABANDONED = "abandoned"


@dataclass(frozen=True, kw_only=True)
class MergeBatch:
    """One merge train's durable record: the conductor's run and task, the repository
    it merges into, and the train as ``Train.to_record()`` gives it (``base``, ``cars``,
    ``runs``, ``landed``, ``rejected``), saved after every step."""

    id: int
    #: The conductor's run and task.
    run_id: int
    task_id: int
    #: The serialisation scope: the merge tasks' key ``merge:<repo>`` without ``merge:``.
    repo: str
    train: Mapping[str, Any] = field(default_factory=dict, hash=False)
    status: BatchStatus = BatchStatus.RUNNING
    started_at: float = 0.0
    updated_at: float = 0.0

    @property
    def members(self) -> list[dict[str, Any]]:
        """Who rode the train, in landing order: ``{pr, issues, head}`` each."""
        return [
            {"pr": car["pr"], "issues": list(car.get("issues", ())), "head": car.get("head", "")}
            for car in self.train.get("cars", ())
        ]

    @property
    def runs(self) -> list[dict[str, Any]]:
        """The test runs, in order: ``{cars, passed, seconds, summary}`` each. A run
        carried from an earlier base after a prefix landed (the same trees) is not one:
        no tests ran for it."""
        return [
            {
                "cars": list(run.get("cars", ())),
                "passed": bool(run.get("passed")),
                "seconds": float(run.get("seconds", 0.0)),
                "summary": str(run.get("summary", "")),
            }
            for run in self.train.get("runs", ())
            if not run.get("carried")
        ]

    @property
    def test_runs(self) -> int:
        """How many times the tests ran for this train."""
        return len(self.runs)

    @property
    def landed(self) -> list[int]:
        return [int(pr) for pr in self.train.get("landed", ())]

    @property
    def rejected(self) -> list[dict[str, Any]]:
        """The cars that did not land with it: ``{pr, head, reason, after, conflict}``;
        ``conflict``: left out for a textual conflict (tried again later), else sent
        back to its builder with ``reason``."""
        return [
            {
                "pr": int(r["pr"]),
                "head": str(r.get("head", "")),
                "reason": str(r.get("reason", "")),
                "after": [int(pr) for pr in r.get("after", ())],
                "conflict": bool(r.get("conflict", False)),
            }
            for r in self.train.get("rejected", ())
        ]

    @property
    def outcome(self) -> str:
        """What came of it, in a few words: "landed", "landed 7, sent back #12",
        "running: landed 2", "abandoned: landed 1", "nothing landed"."""
        landed, cars = self.landed, self.members
        parts = []
        if landed:
            parts.append("landed" if len(landed) == len(cars) else f"landed {len(landed)}")
        sent = [r["pr"] for r in self.rejected if not r["conflict"]]
        left = [r["pr"] for r in self.rejected if r["conflict"]]
        if sent:
            parts.append("sent back " + ", ".join(f"#{pr}" for pr in sent))
        if left:
            parts.append("left out " + ", ".join(f"#{pr}" for pr in left) + " (conflict)")
        said = ", ".join(parts)
        if self.status is BatchStatus.DONE:
            return said or "nothing landed"
        return f"{self.status.value}: {said}" if said else self.status.value

    def to_dict(self) -> dict[str, Any]:
        """The batch as JSON for people and tools (``ralph runs show --json``)."""
        return {
            "id": self.id,
            "run": self.run_id,
            "task": self.task_id,
            "repo": self.repo,
            "status": self.status.value,
            "startedAt": self.started_at,
            "updatedAt": self.updated_at,
            "base": str(self.train.get("base", "")),
            "members": self.members,
            "test_runs": self.test_runs,
            "runs": self.runs,
            "landed": self.landed,
            "rejected": self.rejected,
            "outcome": self.outcome,
        }
