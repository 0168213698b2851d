"""Orchestration in code: the hero and team sessions, the loop over the board and the
service that keeps draining it, the lead, workers and their claim loop, agent slots,
reconciliation with a person's moves on the board, graph rewrites, budgets and run
reports. The agent only does each phase's content;
everything here is deterministic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.orchestrate._admission import CHECKS, Check, Held, admission, hold_line
    from ralph.orchestrate._at_work import at_work
    from ralph.orchestrate._attempts import attempt_key, with_attempts
    from ralph.orchestrate._budget import Budget, CapReached, start_of_day, unknown_cost
    from ralph.orchestrate._cancel import cancel_run
    from ralph.orchestrate._dollars import dollars, unpriced_of
    from ralph.orchestrate._execute import (
        MAX_PLAN_ITERATIONS,
        Execution,
        ExecutionStatus,
        TaskExecutor,
    )
    from ralph.orchestrate._key_waits import key_waits
    from ralph.orchestrate._lead import Ending, Lead, RunVerdict
    from ralph.orchestrate._loop import LoopResult, RootRun, RootSessions, board_queue, run_loop
    from ralph.orchestrate._merge_batches import BatchWords, batch_words, run_batches
    from ralph.orchestrate._options import Interrupt, Observer, SessionOptions
    from ralph.orchestrate._outcome import ESCALATED, Outcome, Tally, replaced, run_outcome, tally
    from ralph.orchestrate._planning import plan_from_tracker
    from ralph.orchestrate._provider_wait import provider_wait_text
    from ralph.orchestrate._reconcile import (
        RECONCILE_SECONDS,
        WITHDRAWN_STATES,
        BoardRead,
        BoardReads,
        Reconciler,
        withdrawn,
    )
    from ralph.orchestrate._report import (
        AttemptLine,
        BestOfLine,
        Counters,
        RunReport,
        StreamLine,
        TaskLine,
        build_report,
        load_report,
    )
    from ralph.orchestrate._rewrite import address_round, base_key, generation, iterate, regraph
    from ralph.orchestrate._roles import WORKER_ROLES
    from ralph.orchestrate._run_files import RunFileNotFound, RunFiles
    from ralph.orchestrate._serve import MAX_ROOT_FAILURES, ServeResult, serve
    from ralph.orchestrate._session import (
        CrewPlan,
        SessionResult,
        hero_crew,
        run_session,
        start_crew,
        suggested_team,
        team_crew,
        worker_crew,
    )
    from ralph.orchestrate._slots import AgentSlots
    from ralph.orchestrate._waiting import wait_policy, wake_waiting
    from ralph.orchestrate._worker import Crew, Worker, WorkerStats
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "CHECKS",
    "ESCALATED",
    "MAX_PLAN_ITERATIONS",
    "MAX_ROOT_FAILURES",
    "RECONCILE_SECONDS",
    "WITHDRAWN_STATES",
    "WORKER_ROLES",
    "AgentSlots",
    "AttemptLine",
    "BatchWords",
    "BestOfLine",
    "BoardRead",
    "BoardReads",
    "Budget",
    "CapReached",
    "Check",
    "Counters",
    "Crew",
    "CrewPlan",
    "Ending",
    "Execution",
    "ExecutionStatus",
    "Held",
    "Interrupt",
    "Lead",
    "LoopResult",
    "Observer",
    "Outcome",
    "Reconciler",
    "RootRun",
    "RootSessions",
    "RunFileNotFound",
    "RunFiles",
    "RunReport",
    "RunVerdict",
    "ServeResult",
    "SessionOptions",
    "SessionResult",
    "StreamLine",
    "Tally",
    "TaskExecutor",
    "TaskLine",
    "Worker",
    "WorkerStats",
    "address_round",
    "admission",
    "at_work",
    "attempt_key",
    "base_key",
    "batch_words",
    "board_queue",
    "build_report",
    "cancel_run",
    "dollars",
    "generation",
    "hero_crew",
    "hold_line",
    "iterate",
    "key_waits",
    "load_report",
    "plan_from_tracker",
    "provider_wait_text",
    "regraph",
    "replaced",
    "run_batches",
    "run_loop",
    "run_outcome",
    "run_session",
    "serve",
    "start_crew",
    "start_of_day",
    "suggested_team",
    "tally",
    "team_crew",
    "unknown_cost",
    "unpriced_of",
    "wait_policy",
    "wake_waiting",
    "with_attempts",
    "withdrawn",
    "worker_crew",
]
