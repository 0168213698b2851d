"""What agents cost, from the store's ledger: per day, per run and per phase, beside the
budget lines of ralph.toml (0: no cap)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from ralph.config import Config
from ralph.graph import TaskKind
from ralph.orchestrate import dollars, unpriced_of
from ralph.tasks import Charge, TaskStore

__all__ = ["SpendLine", "SpendView", "load_spend"]

#: Charges of no task (coordination by an agent) are booked to this phase.
NO_PHASE = "coordination"


@dataclass(frozen=True)
class SpendLine:
    """Spending under one heading: a day (``2026-01-05``), a run (``12``) or a phase."""

    key: str
    label: str
    usd: float
    tokens: int
    turns: int
    agent_runs: int
    #: Models without a price its agents used: its cost is unknown ("?").
    unpriced: tuple[str, ...] = ()

    @property
    def cost(self) -> str:
        return dollars(self.usd, self.unpriced)


@dataclass(frozen=True)
class SpendView:
    total_usd: float
    tokens: int
    #: Newest day first; the days are local, as the daily budget counts them.
    days: tuple[SpendLine, ...]
    #: Newest run first.
    runs: tuple[SpendLine, ...]
    #: In pipeline order.
    phases: tuple[SpendLine, ...]
    budget_task_usd: float
    budget_run_usd: float
    budget_day_usd: float
    today: str
    #: Models without a price any agent used: the total is unknown ("?").
    unpriced: tuple[str, ...] = ()

    @property
    def total(self) -> str:
        return dollars(self.total_usd, self.unpriced)

    @property
    def today_line(self) -> SpendLine | None:
        return next((d for d in self.days if d.key == self.today), None)

    @property
    def spent_today(self) -> float:
        return next((d.usd for d in self.days if d.key == self.today), 0.0)

    def to_dict(self) -> dict[str, Any]:
        def lines(found: Iterable[SpendLine]) -> list[dict[str, Any]]:
            return [asdict(line) for line in found]

        return {
            "totalUsd": self.total_usd,
            "costKnown": not self.unpriced,
            "unpricedModels": list(self.unpriced),
            "tokens": self.tokens,
            "today": self.today,
            "spentToday": self.spent_today,
            "budget": {
                "taskUsd": self.budget_task_usd,
                "runUsd": self.budget_run_usd,
                "dayUsd": self.budget_day_usd,
            },
            "days": lines(self.days),
            "runs": lines(self.runs),
            "phases": lines(self.phases),
        }


def _day(at: float) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d")


def _sum(key: str, label: str, charges: list[Charge]) -> SpendLine:
    return SpendLine(
        key=key,
        label=label,
        usd=sum(c.usd for c in charges),
        tokens=sum(c.tokens for c in charges),
        turns=sum(c.turns for c in charges),
        agent_runs=len(charges),
        unpriced=unpriced_of(c.unpriced_model for c in charges),
    )


def load_spend(store: TaskStore, config: Config, *, now: float) -> SpendView:
    days: dict[str, list[Charge]] = {}
    runs: list[SpendLine] = []
    phases: dict[str, list[Charge]] = {}
    order = [kind.value for kind in TaskKind]
    everything: list[Charge] = []
    for run in store.list_runs():
        charges = store.charges(run.id)
        if not charges:
            continue
        kinds = {t.id: t.kind for t in store.list_tasks(run.id)}
        for charge in charges:
            days.setdefault(_day(charge.at), []).append(charge)
            kind = kinds.get(charge.task_id, NO_PHASE) if charge.task_id else NO_PHASE
            phases.setdefault(kind, []).append(charge)
        runs.append(_sum(str(run.id), run.name, charges))
        everything += charges
    ranked = sorted(phases, key=lambda k: order.index(k) if k in order else len(order))
    return SpendView(
        total_usd=sum(c.usd for c in everything),
        tokens=sum(c.tokens for c in everything),
        unpriced=unpriced_of(c.unpriced_model for c in everything),
        days=tuple(_sum(day, day, days[day]) for day in sorted(days, reverse=True)),
        runs=tuple(runs),
        phases=tuple(_sum(kind, kind, phases[kind]) for kind in ranked),
        budget_task_usd=config.budget_task_usd,
        budget_run_usd=config.budget_run_usd,
        budget_day_usd=config.budget_day_usd,
        today=_day(now),
    )
