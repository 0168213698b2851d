"""Spend against every cap of ralph.toml (the latest run's, today's, each issue's the
latest run worked on), the issues held and the providers waited for: what ``ralph
budget`` prints and ``ralph status`` and the web board mark."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ralph.config import Config
from ralph.orchestrate import hold_line, start_of_day
from ralph.tasks import Hold, ProviderWait, Spend, TaskStore

__all__ = ["CapLine", "CapsView", "hold_document", "load_caps"]


@dataclass(frozen=True)
class CapLine:
    """One cap: what it counts (``run 3``, ``day``, ``issue #5``), its setting,
    the cap (0: none) and what was spent against it."""

    scope: str
    setting: str
    unit: str
    cap: float
    spent: float

    @property
    def reached(self) -> bool:
        return self.cap > 0 and self.spent >= self.cap


def hold_document(hold: Hold) -> dict[str, Any]:
    return {
        "number": hold.number,
        "repo": hold.repo,
        "reason": hold.reason.value,
        "detail": hold.detail,
        "lift": hold.lift,
        "runId": hold.run_id,
        "at": hold.at,
        "line": hold_line(hold, hold.number),
    }


def _spend(spend: Spend) -> dict[str, Any]:
    return {"usd": spend.usd, "tokens": spend.tokens, "sessions": spend.sessions}


@dataclass(frozen=True)
class CapsView:
    run_id: int | None
    run: Spend
    day: Spend
    caps: tuple[CapLine, ...]
    holds: tuple[Hold, ...]
    waits: tuple[ProviderWait, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "spend": {
                "run": {"id": self.run_id, **_spend(self.run)},
                "day": _spend(self.day),
            },
            "caps": [{**asdict(c), "reached": c.reached} for c in self.caps],
            "holds": [hold_document(h) for h in self.holds],
            "providerWaits": [
                {"agent": w.agent, "until": w.until, "said": w.said} for w in self.waits
            ],
        }


def load_caps(store: TaskStore, config: Config, *, now: float) -> CapsView:
    runs = store.list_runs()
    latest = max(runs, key=lambda r: r.id) if runs else None
    run = store.spend(run_id=latest.id) if latest else Spend()
    day = store.spend(since=start_of_day(now))
    scope = f"run {latest.id}" if latest else "run"
    caps = [
        CapLine(scope, "budget_run_usd", "usd", config.budget_run_usd, run.usd),
        CapLine(scope, "budget_run_tokens", "tokens", config.budget_run_tokens, run.tokens),
        CapLine("day", "budget_day_usd", "usd", config.budget_day_usd, day.usd),
        CapLine("day", "budget_day_tokens", "tokens", config.budget_day_tokens, day.tokens),
        CapLine("day", "budget_day_sessions", "sessions", config.budget_day_sessions, day.sessions),
    ]
    issues = sorted({c.issue for c in store.charges(latest.id) if c.issue} if latest else set())
    for number in issues:
        spent = store.spend(repo=config.repo, issue=number).tokens
        caps.append(
            CapLine(
                f"issue #{number}",
                "budget_issue_tokens",
                "tokens",
                config.budget_issue_tokens,
                spent,
            )
        )
    return CapsView(
        run_id=latest.id if latest else None,
        run=run,
        day=day,
        caps=tuple(caps),
        holds=tuple(store.holds(config.repo)),
        waits=tuple(store.provider_waits(now=now)),
    )
