"""The no-progress breaker: an issue that spent more than ``budget_stall_tokens`` (or
``budget_stall_usd``) since it last moved forward is held (``HoldReason.NO_PROGRESS``)
instead of being tried again, until a person lifts the hold (``ralph budget lift N``).

"Moved forward" is what the store answers in one query: a task whose agent runs were
charged to the issue completed (``TaskStore.last_progress``). A phase failing and being
retried, or a plan sent back again and again, completes nothing, so its charges add up;
a task no agent works on (a pull request opened, a merge) charges nothing, so counting
from the agent's task before it comes to the same. The workflow state on the tracker is
not read: it moves with those same completions, and reading it costs a request.

Only charges count, never time or claims: a merge waiting for its checks or for a slot
in the merge train spends nothing, however long and however often it is looked at (a
peer's breaker that counted attempts fired on merge trains). Charges count across runs.
Only a task an agent works on is held: one without an agent spends nothing, so holding
it would save nothing.

A hold lifted by hand gives the issue a fresh allowance: the breaker records when it
tripped (a checkpoint in the store) and counts from then too."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from ralph.config import Config
from ralph.tasks import Hold, HoldReason, Run, Spend, Task, TaskStore
from ralph.workflow import PHASE_SPECS

__all__ = ["no_progress", "no_progress_hold", "stalled"]

logger = logging.getLogger(__name__)

_NOTHING = Spend()
#: The kinds of task an agent works on: only they spend.
_SPENDING = frozenset(s.kind for s in PHASE_SPECS if s.uses_agent)


def stalled(spent: Spend, *, tokens: int, usd: float) -> str:
    """What of ``spent`` is past the breaker ("412,000 tokens", "$3.50"), or "" while
    it is within it (a limit of 0 is off)."""
    if tokens > 0 and spent.tokens > tokens:
        return f"{spent.tokens:,} tokens"
    if usd > 0 and spent.usd > usd:
        return f"${spent.usd:.2f}"
    return ""


def _tripped_key(repo: str, number: int) -> str:
    return f"no-progress:{repo}#{number}"


def _clock(at: float, now: float) -> str:
    """``14:02`` today, ``2026-12-05 14:02`` another day."""
    moment, today = datetime.fromtimestamp(at), datetime.fromtimestamp(now)
    return moment.strftime("%H:%M" if moment.date() == today.date() else "%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class _Stall:
    """What an issue spent past the breaker, since when, and the setting it crossed."""

    over: str
    since: str
    setting: str

    @property
    def detail(self) -> str:
        return f"spent {self.over} {self.since}"


def _stall(
    store: TaskStore, config: Config, number: int, *, now: float, unrecorded: Spend
) -> _Stall | None:
    tokens, usd = config.budget_stall_tokens, config.budget_stall_usd
    if tokens <= 0 and usd <= 0:
        return None
    repo = config.repo
    progress = store.last_progress(repo, number)
    since = progress.updated_at if progress is not None else None
    tripped = store.load_checkpoint(_tripped_key(repo, number))
    held_at = float(tripped["at"]) if tripped is not None else None
    if held_at is not None and (since is None or held_at > since):
        since = held_at
        when = f"since #{number} was last held ({_clock(held_at, now)})"
    elif progress is not None:
        when = f"since #{number} last moved forward ({progress.kind}, {_clock(since or 0, now)})"
    else:
        when = f"on #{number}, which has not moved forward yet"
    recorded = store.spend(repo=repo, issue=number, since=since)
    spent = Spend(
        usd=recorded.usd + unrecorded.usd,
        tokens=recorded.tokens + unrecorded.tokens,
        sessions=recorded.sessions + unrecorded.sessions,
    )
    over = stalled(spent, tokens=tokens, usd=usd)
    if not over:
        return None
    setting = "budget_stall_tokens" if over.endswith("tokens") else "budget_stall_usd"
    return _Stall(over, when, setting)


def no_progress(
    store: TaskStore,
    config: Config,
    task: Task,
    *,
    unrecorded: Spend = _NOTHING,
    now: float | None = None,
) -> str:
    """Why ``task``'s issue may not spend more ("" while it may), counting
    ``unrecorded``: what its agent runs spent that the ledger does not have yet (the
    tries of a phase still running). Records nothing."""
    if not task.issues:
        return ""
    at = time.time() if now is None else now
    stall = _stall(store, config, task.issues[0], now=at, unrecorded=unrecorded)
    return "" if stall is None else stall.detail


def no_progress_hold(
    store: TaskStore, config: Config, run: Run, task: Task, *, now: float | None = None
) -> Hold | None:
    """The hold to put on ``task``'s issue (its first, which its charges go to) when it
    spent past the breaker since it last moved forward; None otherwise. Records when the
    breaker tripped, so that a hold lifted by hand counts from then."""
    if not task.issues or task.kind not in _SPENDING:
        return None
    repo, number = config.repo, task.issues[0]
    now = time.time() if now is None else now
    stall = _stall(store, config, number, now=now, unrecorded=_NOTHING)
    if stall is None:
        return None
    store.save_checkpoint(_tripped_key(repo, number), {"at": now})
    logger.warning("no progress", extra={"issue": number, "spent": stall.over})
    return Hold(
        repo=repo,
        number=number,
        reason=HoldReason.NO_PROGRESS,
        detail=stall.detail,
        lift=f"ralph budget lift {number} (or raise {stall.setting})",
        run_id=run.id,
        at=now,
    )
