"""Spending caps over the store's ledger: dollars, tokens (as each agent CLI reports
them) and agent sessions, per task, per run, per issue across runs and per day across
runs. Once a run or day cap is reached no task is claimed; a task or issue cap keeps
that task or issue from starting again (``_admission``). Tasks already running finish
their turn (or are stopped: ``budget_on_cap = "stop"``). A charge whose cost is unknown
(a model without a price) stops work too while any dollar cap is set: what was spent
cannot be held to it. Each cap reached says which it is, how much was spent of how much,
and the one fix."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from ralph.config import Config
from ralph.runtimes import UNNAMED_MODEL
from ralph.tasks import Spend, TaskStore

__all__ = ["Budget", "CapReached", "raise_fix", "start_of_day", "unknown_cost"]


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


def raise_fix(setting: str) -> str:
    """The one fix of a cap: raise ``setting`` (a ralph.toml key) or its variable."""
    return f"raise {setting} in ralph.toml or run with RALPH_{setting.upper()}=N"


@dataclass(frozen=True)
class CapReached:
    """A cap that stops work: ``said`` names it and the spend ("the run's token cap:
    120,412 of 100,000 tokens"), ``fix`` the one way on."""

    said: str
    fix: str

    def __str__(self) -> str:
        return f"{self.said}; {self.fix}" if self.fix else self.said


def _plus(spend: Spend, more: Spend) -> Spend:
    return Spend(
        usd=spend.usd + more.usd,
        tokens=spend.tokens + more.tokens,
        sessions=spend.sessions + more.sessions,
    )


def _dollars(whose: str, setting: str, spent: float, cap: float) -> CapReached | None:
    if cap <= 0 or spent < cap:
        return None
    return CapReached(f"{whose} budget is spent (${spent:.2f} of ${cap:.2f})", raise_fix(setting))


def _tokens(whose: str, setting: str, spent: int, cap: int) -> CapReached | None:
    if cap <= 0 or spent < cap:
        return None
    return CapReached(f"{whose} token cap: {spent:,} of {cap:,} tokens", raise_fix(setting))


@dataclass(frozen=True)
class Budget:
    """US dollars, tokens and agent sessions; 0 means no cap."""

    task_usd: float = 0.0
    run_usd: float = 0.0
    day_usd: float = 0.0
    task_tokens: int = 0
    run_tokens: int = 0
    issue_tokens: int = 0
    day_tokens: int = 0
    day_sessions: int = 0
    #: "finish": an agent at work when a cap is reached finishes its turn; "stop": it is
    #: stopped and its task handed back untried.
    on_cap: str = "finish"
    #: Models ralph.toml prices now: an earlier charge of one whose price was unknown
    #: then no longer stops work (the person added the price the message asked for).
    priced: frozenset[str] = frozenset()

    @classmethod
    def from_config(cls, config: Config) -> Budget:
        return cls(
            config.budget_task_usd,
            config.budget_run_usd,
            config.budget_day_usd,
            task_tokens=config.budget_task_tokens,
            run_tokens=config.budget_run_tokens,
            issue_tokens=config.budget_issue_tokens,
            day_tokens=config.budget_day_tokens,
            day_sessions=config.budget_day_sessions,
            on_cap=config.budget_on_cap,
            priced=frozenset(config.prices),
        )

    @property
    def capped(self) -> bool:
        """Whether any cap is set."""
        return any(
            (
                self.task_usd,
                self.run_usd,
                self.day_usd,
                self.task_tokens,
                self.run_tokens,
                self.issue_tokens,
                self.day_tokens,
                self.day_sessions,
            )
        )

    def exhausted(self, store: TaskStore, run_id: int, *, now: float | None = None) -> str:
        """Why no more work may start ("" while there is budget left)."""
        reached = self.reached(store, run_id, now=now)
        return str(reached) if reached is not None else ""

    def reached(
        self,
        store: TaskStore,
        run_id: int,
        *,
        now: float | None = None,
        running: Spend | None = None,
    ) -> CapReached | None:
        """The run or day cap that stops every claim, if one is reached; ``running``:
        what agents at work spent so far, not charged yet."""
        since = start_of_day(time.time() if now is None else now)
        if self.task_usd > 0 or self.run_usd > 0:
            unknown = [m for m in store.unpriced_models(run_id=run_id) if m not in self.priced]
            if unknown:
                return CapReached(unknown_cost(unknown[0]), "")  # it says the fix
        if self.day_usd > 0:
            unknown = [m for m in store.unpriced_models(since=since) if m not in self.priced]
            if unknown:
                return CapReached(unknown_cost(unknown[0]), "")  # it says the fix
        live = running or Spend()
        run = store.spend(run_id=run_id) if self.run_usd or self.run_tokens else Spend()
        run = _plus(run, live)
        day = Spend()
        if self.day_usd or self.day_tokens or self.day_sessions:
            day = _plus(store.spend(since=since), live)
        return (
            _dollars("the run's", "budget_run_usd", run.usd, self.run_usd)
            or _dollars("today's", "budget_day_usd", day.usd, self.day_usd)
            or _tokens("the run's", "budget_run_tokens", run.tokens, self.run_tokens)
            or _tokens("today's", "budget_day_tokens", day.tokens, self.day_tokens)
            or self._day_sessions(day.sessions)
        )

    def _day_sessions(self, sessions: int) -> CapReached | None:
        if self.day_sessions <= 0 or sessions < self.day_sessions:
            return None
        return CapReached(
            f"today's session cap: {sessions:,} of {self.day_sessions:,} agent sessions",
            raise_fix("budget_day_sessions"),
        )

    def task_cap(self, store: TaskStore, task_id: int, *, running: int = 0) -> CapReached | None:
        """The task's token cap, once its charges (every attempt's, and ``running``
        tokens of its agent at work) reached it."""
        if self.task_tokens <= 0:
            return None
        spent = store.spend(task_id=task_id).tokens + running
        return _tokens("the task's", "budget_task_tokens", spent, self.task_tokens)

    def issue_cap(
        self, store: TaskStore, repo: str, issue: int, *, running: int = 0
    ) -> CapReached | None:
        """Issue ``issue``'s token cap, counted across every run that worked on it (and
        ``running`` tokens of its agent at work)."""
        if self.issue_tokens <= 0:
            return None
        spent = store.spend(repo=repo, issue=issue).tokens + running
        return _tokens(f"#{issue}'s", "budget_issue_tokens", spent, self.issue_tokens)
