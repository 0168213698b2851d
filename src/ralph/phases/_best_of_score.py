"""Best of N: which of several implementations of one plan wins, and why. Pure: the
attempts' measurements in, a ranking and a sentence out.

The order is fixed and deterministic, each criterion deciding only between attempts
the ones before it left tied: the project's tests pass (an attempt whose tests fail,
or that never finished, cannot win); then more of the plan's automated checks ticked;
then the smaller diff against the base branch (lines added plus lines removed); then
the lower cost; then the earlier attempt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["AttemptRecord", "Selection", "rank_attempts", "select_attempt"]


@dataclass(frozen=True, kw_only=True)
class AttemptRecord:
    """What one attempt produced, as measured by Ralph (never as the agent says)."""

    #: 1..N, the attempt's number in its task key (``implement:42/try-2``).
    attempt: int
    #: Who did the work ("codex", "claude:opus", or the runtime's description).
    agent: str = ""
    branch: str = ""
    #: The attempt ended with a finished implementation: commits, every plan phase
    #: ticked, nothing left uncommitted or written outside its worktree.
    finished: bool = False
    #: "passed", "failed" or "not run" (the attempt ended before its tests).
    tests: str = "not run"
    checks_done: int = 0
    checks_total: int = 0
    #: Lines added plus lines removed against the base branch.
    diff_lines: int = 0
    cost_usd: float = 0.0
    #: False when an agent of the attempt used a model without a price: its cost is
    #: unknown, and no attempt wins on cost.
    cost_known: bool = True
    seconds: float = 0.0
    #: Why the attempt cannot win, one line each (empty for a finished one).
    problems: tuple[str, ...] = ()

    @property
    def eligible(self) -> bool:
        return self.finished and self.tests == "passed"

    @property
    def cost(self) -> str:
        """``$1.23``, or ``cost unknown``."""
        return f"${self.cost_usd:.2f}" if self.cost_known else "cost unknown"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["problems"] = list(self.problems)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttemptRecord:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["problems"] = tuple(known.get("problems", ()))
        return cls(**known)


def _key(record: AttemptRecord, by_cost: bool) -> tuple[bool, int, int, float, int]:
    return (
        not record.eligible,
        -record.checks_done,
        record.diff_lines,
        round(record.cost_usd, 6) if by_cost else 0.0,
        record.attempt,
    )


def _by_cost(records: Sequence[AttemptRecord]) -> bool:
    """Whether cost may decide: an unknown cost is not a low one."""
    return all(r.cost_known for r in records)


def rank_attempts(records: Sequence[AttemptRecord]) -> list[AttemptRecord]:
    """The attempts best first."""
    by_cost = _by_cost(records)
    return sorted(records, key=lambda record: _key(record, by_cost))


@dataclass(frozen=True)
class Selection:
    #: The winning attempt's number (None: no attempt may win).
    winner: int | None
    #: Why, in a sentence for the report and the issue.
    reason: str
    #: Attempt numbers best first.
    ranking: tuple[int, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason, "ranking": list(self.ranking)}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _why_not(record: AttemptRecord, best: AttemptRecord, by_cost: bool = True) -> str:
    """What decided between ``best`` and ``record`` (which ranks below it)."""
    name = f"try {record.attempt}"
    if not record.finished:
        what = record.problems[0] if record.problems else "it did not finish"
        return f"{name} did not finish ({what})"
    if record.tests != "passed":
        return f"{name}'s tests {'fail' if record.tests == 'failed' else 'did not run'}"
    if record.checks_done != best.checks_done:
        return f"{name} ticked {record.checks_done} of {record.checks_total} plan checks"
    if record.diff_lines != best.diff_lines:
        return f"{name}'s diff is larger ({_plural(record.diff_lines, 'line')})"
    if by_cost and round(record.cost_usd, 6) != round(best.cost_usd, 6):
        return f"{name} cost more (${record.cost_usd:.2f})"
    return f"{name} came later with the same score"


def select_attempt(records: Sequence[AttemptRecord]) -> Selection:
    """The winner by the fixed order, and a reason naming what decided against each
    other attempt."""
    if not records:
        return Selection(None, "no attempt ran")
    ranked = rank_attempts(records)
    order = tuple(r.attempt for r in ranked)
    best = ranked[0]
    by_cost = _by_cost(records)
    others = [_why_not(r, best, by_cost) for r in ranked[1:]]
    if not best.eligible:
        return Selection(
            None,
            f"none of the {_plural(len(records), 'attempt')} passed its tests and checks: "
            + "; ".join(_why_not(r, best, by_cost) if r is not best else _own(r) for r in ranked),
            order,
        )
    won = (
        f"try {best.attempt} won: tests pass, {best.checks_done} of {best.checks_total} "
        f"plan checks ticked, {_plural(best.diff_lines, 'line')} changed, " + best.cost
    )
    return Selection(best.attempt, won + (f" ({'; '.join(others)})" if others else ""), order)


def _own(record: AttemptRecord) -> str:
    """The best attempt's own failure, when even it may not win."""
    if record.problems:
        return f"try {record.attempt}: {record.problems[0]}"
    return f"try {record.attempt}'s tests {record.tests}"
