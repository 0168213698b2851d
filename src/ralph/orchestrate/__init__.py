"""Orchestration in code: the hero and team sessions, the lead, workers and their claim
loop, graph rewrites, budgets and run reports. The agent only does each phase's content;
everything here is deterministic."""

from __future__ import annotations

from ralph.orchestrate._budget import Budget
from ralph.orchestrate._execute import (
    MAX_PLAN_ITERATIONS,
    Execution,
    ExecutionStatus,
    TaskExecutor,
)
from ralph.orchestrate._lead import Ending, Lead, RunVerdict
from ralph.orchestrate._planning import plan_from_tracker
from ralph.orchestrate._report import (
    Counters,
    RunReport,
    StreamLine,
    TaskLine,
    build_report,
    load_report,
)
from ralph.orchestrate._rewrite import base_key, generation, iterate, regraph
from ralph.orchestrate._session import (
    WORKER_ROLES,
    CrewPlan,
    Interrupt,
    Observer,
    SessionResult,
    hero_crew,
    run_session,
    start_crew,
    suggested_team,
    team_crew,
    worker_crew,
)
from ralph.orchestrate._worker import Crew, Worker, WorkerStats

__all__ = [
    "MAX_PLAN_ITERATIONS",
    "WORKER_ROLES",
    "Budget",
    "Counters",
    "Crew",
    "CrewPlan",
    "Ending",
    "Execution",
    "ExecutionStatus",
    "Interrupt",
    "Lead",
    "Observer",
    "RunReport",
    "RunVerdict",
    "SessionResult",
    "StreamLine",
    "TaskExecutor",
    "TaskLine",
    "Worker",
    "WorkerStats",
    "base_key",
    "build_report",
    "generation",
    "hero_crew",
    "iterate",
    "load_report",
    "plan_from_tracker",
    "regraph",
    "run_session",
    "start_crew",
    "suggested_team",
    "team_crew",
    "worker_crew",
]
