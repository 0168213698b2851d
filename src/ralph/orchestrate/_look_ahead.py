"""The look before spending: before an agent phase starts, what it usually costs here
(the median of this project's earlier tasks of the same phase and estimate, from the
ledger) is held against what is left of each cap that applies; a phase that would not
fit is not started, and its issue is held (``HoldReason.BUDGET``) with the cap named.

The median, not a high percentile: the look refuses what usually cannot finish, not
what might overrun once; a phase that does overrun is still stopped by the cap itself,
and a percentile over a handful of samples is its largest one, which would hold issues
that usually fit. With fewer than ``MIN_SAMPLES`` earlier tasks there is no look: one or
two are no "usually".

The caps are read by name (``getattr(config, name, 0)``): the token and session caps
are settings of their own that a project may not have."""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ralph.config import Config
from ralph.orchestrate._budget import start_of_day
from ralph.tasks import Hold, HoldReason, Run, Spend, Task, TaskStore
from ralph.workflow import PHASE_SPECS

__all__ = ["MIN_SAMPLES", "Headroom", "expected_cost", "look_ahead_hold", "short_of"]

logger = logging.getLogger(__name__)

#: Earlier tasks of a phase and estimate before their median says what it usually takes.
MIN_SAMPLES = 3
#: The phases an agent does, by task kind: only they spend.
_AGENT_PHASE_OF_KIND = {s.kind: s.name for s in PHASE_SPECS if s.uses_agent}

Unit = Literal["tokens", "usd", "sessions"]
#: Whose cap each scope is, as a sentence says it.
_WHOSE = {
    "task": "the task's cap",
    "run": "the run's cap",
    "issue": "the issue's cap",
    "day": "today's cap",
}
_SETTING_UNITS: tuple[tuple[str, Unit], ...] = (
    ("tokens", "tokens"),
    ("usd", "usd"),
    ("sessions", "sessions"),
)


def _amount(unit: Unit, value: float) -> str:
    if unit == "usd":
        return f"${value:.2f}"
    return f"{round(value):,}" + (" sessions" if unit == "sessions" else "")


@dataclass(frozen=True)
class Headroom:
    """What is left of one cap: ``setting`` names it in ralph.toml (``budget_run_tokens``)."""

    setting: str
    whose: str
    unit: Unit
    left: float

    def fits(self, expected: Spend) -> bool:
        need = {"tokens": expected.tokens, "usd": expected.usd, "sessions": expected.sessions}
        return need[self.unit] <= self.left

    def refusal(self, phase: str, number: int, expected: Spend) -> str:
        """Why ``phase`` of issue ``number`` is not started, and how to raise the cap."""
        usual = {"tokens": expected.tokens, "usd": expected.usd, "sessions": expected.sessions}
        unit = " tokens" if self.unit == "tokens" else ""
        return (
            f"not starting {phase} of #{number}: it usually takes "
            f"~{_amount(self.unit, usual[self.unit])}{unit} and "
            f"{_amount(self.unit, max(self.left, 0))} are left of {self.whose} "
            f"({self.raise_it})"
        )

    @property
    def raise_it(self) -> str:
        return f"raise {self.setting} in ralph.toml or run with RALPH_{self.setting.upper()}=N"


def expected_cost(history: Sequence[Spend]) -> Spend | None:
    """What a phase usually costs by its ``history`` (one Spend per earlier task): the
    median of each measure; None with fewer than ``MIN_SAMPLES``."""
    if len(history) < MIN_SAMPLES:
        return None
    return Spend(
        usd=statistics.median(s.usd for s in history),
        tokens=round(statistics.median(s.tokens for s in history)),
        sessions=round(statistics.median(s.sessions for s in history)),
    )


def short_of(expected: Spend, headroom: Sequence[Headroom]) -> Headroom | None:
    """The first cap in ``headroom`` that ``expected`` does not fit in, if any."""
    return next((cap for cap in headroom if not cap.fits(expected)), None)


def _cap(config: Config, setting: str) -> float:
    value = getattr(config, setting, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def headroom(
    store: TaskStore, config: Config, run: Run, task: Task, *, now: float
) -> list[Headroom]:
    """What is left of every cap set that ``task`` spends against: its own, its run's,
    its issue's (across runs) and today's."""
    left: list[Headroom] = []
    for scope, whose in _WHOSE.items():
        caps = [
            (f"budget_{scope}_{suffix}", unit, cap)
            for suffix, unit in _SETTING_UNITS
            if (cap := _cap(config, f"budget_{scope}_{suffix}")) > 0
        ]
        if not caps:
            continue
        if scope == "task":
            spent = store.spend(task_id=task.id)
        elif scope == "run":
            spent = store.spend(run_id=run.id)
        elif scope == "issue":
            if not task.issues:
                continue
            spent = store.spend(repo=config.repo, issue=task.issues[0])
        else:
            spent = store.spend(since=start_of_day(now))
        used = {"tokens": spent.tokens, "usd": spent.usd, "sessions": spent.sessions}
        left += [Headroom(name, whose, unit, cap - used[unit]) for name, unit, cap in caps]
    return left


def look_ahead_hold(
    store: TaskStore, config: Config, run: Run, task: Task, *, now: float | None = None
) -> Hold | None:
    """The hold to put on ``task``'s issue when its phase usually costs more than is
    left of a cap; None when it fits, runs no agent, or has too little history."""
    phase = _AGENT_PHASE_OF_KIND.get(task.kind)
    if phase is None or not task.issues:
        return None
    now = time.time() if now is None else now
    left = headroom(store, config, run, task, now=now)
    if not left:
        return None
    estimate = str(task.metadata.get("estimate", ""))
    expected = expected_cost(store.phase_history(config.repo, phase, estimate))
    if expected is None:
        return None
    short = short_of(expected, left)
    if short is None:
        return None
    number = task.issues[0]
    detail = short.refusal(phase, number, expected)
    logger.warning("phase would not fit", extra={"issue": number, "phase": phase})
    return Hold(
        repo=config.repo,
        number=number,
        reason=HoldReason.BUDGET,
        detail=detail,
        lift=short.raise_it,
        run_id=run.id,
        at=now,
    )
