"""Spending caps over the store's ledger: per run and per day across runs. (The cap per
task goes to the agent itself as its budget.) Once a cap is reached no task is claimed;
tasks already running finish. A charge whose cost is unknown (a model without a price)
stops work too while any dollar cap is set: what was spent cannot be held to it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from ralph.config import Config
from ralph.runtimes import UNNAMED_MODEL
from ralph.tasks import TaskStore

__all__ = ["Budget", "start_of_day", "unknown_cost"]


def unknown_cost(model: str) -> str:
    """Why a dollar cap stops work once ``model``, which has no price, was used."""
    if model == UNNAMED_MODEL:
        return (
            "the cost of the agent's model is unknown (neither ralph.toml nor its CLI names "
            'it): set [agent] model and add its [prices."MODEL"] to ralph.toml, or remove '
            "the cap"
        )
    return (
        f'the cost of model {model} is unknown: add [prices."{model}"] to ralph.toml or '
        "remove the cap"
    )


def start_of_day(now: float) -> float:
    """Local midnight before ``now``: the day the daily cap counts."""
    day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


@dataclass(frozen=True)
class Budget:
    """US dollars; 0 means no cap."""

    task_usd: float = 0.0
    run_usd: float = 0.0
    day_usd: float = 0.0

    @classmethod
    def from_config(cls, config: Config) -> Budget:
        return cls(config.budget_task_usd, config.budget_run_usd, config.budget_day_usd)

    def exhausted(self, store: TaskStore, run_id: int, *, now: float | None = None) -> str:
        """Why no more work may start ("" while there is budget left)."""
        since = start_of_day(time.time() if now is None else now)
        if self.task_usd > 0 or self.run_usd > 0:
            unknown = store.unpriced_models(run_id=run_id)
            if unknown:
                return unknown_cost(unknown[0])
        if self.day_usd > 0:
            unknown = store.unpriced_models(since=since)
            if unknown:
                return unknown_cost(unknown[0])
        if self.run_usd > 0:
            spent = store.spent(run_id=run_id)
            if spent >= self.run_usd:
                return f"the run's budget is spent (${spent:.2f} of ${self.run_usd:.2f})"
        if self.day_usd > 0:
            spent = store.spent(since=since)
            if spent >= self.day_usd:
                return f"today's budget is spent (${spent:.2f} of ${self.day_usd:.2f})"
        return ""
