"""A session of hero or team mode: the lead opens or resumes the root's run, a crew of
workers in this process claims its tasks, the lead watches the store's events until the
run is over for now, then asks the workers to stop.

hero: ``concurrency`` workers that each take any role. team: workers per role (the
suggested roster unless told), growing with each role's queue and shrinking back when
idle (``_roster``), and any number of ``ralph worker`` processes elsewhere against the
same store. Both are the same engine; only the crew differs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ralph._process import process_owner
from ralph._tracing import span
from ralph.config import BestOf
from ralph.errors import RalphError
from ralph.graph import MIN_GROUP_FOR_STREAMS, PipelinePlan, ReviewMode
from ralph.orchestrate._cap_stop import stop_at_cap
from ralph.orchestrate._ending_notice import notify_ending
from ralph.orchestrate._execute import TaskExecutor, run_trace
from ralph.orchestrate._lead import Ending, Lead, RunVerdict
from ralph.orchestrate._leases import release_stale_locks
from ralph.orchestrate._options import Interrupt, SessionOptions
from ralph.orchestrate._outcome import run_outcome
from ralph.orchestrate._planning import plan_from_tracker
from ralph.orchestrate._reconcile import BoardReads, Reconciler
from ralph.orchestrate._roles import WORKER_ROLES
from ralph.orchestrate._roster import Roster, RosterLine
from ralph.orchestrate._worker import IDLE_SECONDS, Crew, Worker
from ralph.phases import MergeLooks
from ralph.pipeline import (
    MAX_BUILDERS,
    FileOwnership,
    Stage,
    detect_work_streams,
    suggest_roster,
)
from ralph.project import Project
from ralph.runtimes import AgentRuntime
from ralph.tasks import Run, RunStatus, TaskStatus, TaskStore

__all__ = [
    "CrewPlan",
    "SessionResult",
    "hero_crew",
    "run_session",
    "start_crew",
    "suggested_team",
    "team_crew",
    "worker_crew",
]

logger = logging.getLogger(__name__)

#: How often the lead looks at the run when no event arrives.
LOOK_SECONDS = 0.5
#: How long idle workers get to notice a shutdown (several of their idle waits).
STOP_GRACE_SECONDS = 5 * IDLE_SECONDS
#: Positions from which research (and so work streams) is still ahead.
_BEFORE_STREAMS = frozenset({Stage.TRIAGE, Stage.SPLIT, Stage.RESEARCH})

#: (worker name, roles) for each worker of a crew.
CrewPlan = Sequence[tuple[str, tuple[str, ...]]]


@dataclass(frozen=True)
class SessionResult:
    run: Run | None
    ending: Ending
    detail: str = ""
    resumed: bool = False
    gates: tuple[int, ...] = ()
    #: (issue, what it waits for) of each task waiting for a person (a review, a merge).
    waiting: tuple[tuple[int, str], ...] = ()
    #: Agent-free counters from this process's workers.
    claims: int = 0
    idle_waits: int = 0
    workers: tuple[str, ...] = field(default=())
    #: With nothing to do: the root's issues in Human Needed (a person has them).
    escalated: tuple[int, ...] = ()
    #: A team's workers per role at the start, at most and at the end.
    roster: tuple[RosterLine, ...] = ()


def hero_crew(concurrency: int) -> CrewPlan:
    return [(f"hero-{i}", WORKER_ROLES) for i in range(1, concurrency + 1)]


def team_crew(counts: Mapping[str, int]) -> CrewPlan:
    return [
        (f"{role}-{i}", (role,)) for role in WORKER_ROLES for i in range(1, counts.get(role, 0) + 1)
    ]


def worker_crew(roles: Sequence[str], concurrency: int) -> CrewPlan:
    label = "+".join(roles)
    return [(f"{label}-{i}", tuple(roles)) for i in range(1, concurrency + 1)]


def suggested_team(
    project: Project, root: int, review_mode: ReviewMode | str, best_of: BestOf | None = None
) -> dict[str, int]:
    """The suggested roster for the root as it stands, at least one worker per role
    (idle workers cost nothing: they sleep on the store's events). Work streams are
    only known after research, so a team that starts before it brings a builder for
    each stream there may be; best of N brings a builder per attempt."""
    best_of = best_of or project.config.agent.best_of_for("implement")
    plan = plan_from_tracker(project, root, review_mode, best_of)
    roster = suggest_roster(plan.position, plan.streams).to_dict()
    possible = _possible_streams(project, plan)
    roster["builder"] = max(roster["builder"], min(possible, MAX_BUILDERS), best_of.count)
    return {role: max(1, roster.get(role, 1)) for role in WORKER_ROLES}


def _possible_streams(project: Project, plan: PipelinePlan) -> int:
    """How many work streams research may still reveal: none once it is behind; as many
    as a split may make while an issue is sized M or more (or not sized yet); else, for
    a group of three or more, one per part its blocking links leave apart."""
    phase = plan.position.phase
    if plan.streams is not None or phase not in _BEFORE_STREAMS:
        return 0
    issues = plan.position.issues
    if any(i.oversized or (i.estimate is None and phase is Stage.TRIAGE) for i in issues):
        return MAX_BUILDERS
    if len(plan.group.issues) < MIN_GROUP_FOR_STREAMS:
        return 0
    relations = project.tracker.relations
    owners = [
        FileOwnership(n, (), r.blocked_by if (r := relations(n)) else ()) for n in plan.group.issues
    ]
    return detect_work_streams(owners).total_streams


def start_crew(
    project: Project, runtime: AgentRuntime, run: Run, crew: CrewPlan, options: SessionOptions
) -> Crew:
    """Workers that stop on ``options.interrupt`` (told why when a worker's agent cannot
    work here at all) and, with ``options.phases``, take tasks of those phases only."""
    started = Crew([_worker(project, runtime, run, name, roles, options) for name, roles in crew])
    started.start()
    return started


def _worker(
    project: Project,
    runtime: AgentRuntime,
    run: Run,
    name: str,
    roles: tuple[str, ...],
    options: SessionOptions,
) -> Worker:
    owner = process_owner(name)
    stop = options.interrupt.agent_unusable
    executor = TaskExecutor(
        project, runtime, run, owner=owner, attempts=options.attempts, stop=stop
    )
    return Worker(project.store, run.id, owner, roles, executor.execute, options)


def _team_roster(
    project: Project,
    runtime: AgentRuntime,
    run: Run,
    crew: CrewPlan,
    workers: Crew,
    options: SessionOptions,
) -> Roster | None:
    """The roster that grows a team's crew with its queues (None for a hero's crew,
    whose every worker takes any role)."""
    if options.mode != "team" or any(len(roles) != 1 for _, roles in crew):
        return None
    starting = dict.fromkeys(WORKER_ROLES, 0)
    for _, (role,) in crew:
        starting[role] = starting.get(role, 0) + 1

    def hire(role: str, name: str) -> Worker:
        return _worker(project, runtime, run, name, (role,), options)

    return Roster(
        workers,
        hire,
        starting,
        caps=options.role_caps,
        total=options.max_team_workers,
        phases=options.phases,
    )


def run_session(
    project: Project,
    root: int,
    runtime: AgentRuntime,
    options: SessionOptions | None = None,
    *,
    crew: CrewPlan,
    reconciler: Reconciler | None = None,
) -> SessionResult:
    """Run ``root``'s pipeline until it is done, waits for a person, is out of budget,
    or is interrupted (``options``: ralph.toml's when not given). With
    ``options.phases``, only tasks of those phases run, and the session ends when none
    of them is left to do. ``options.wait``: tasks waiting for a person (a review, a
    merge by hand) keep the session going, looked at again by their backoff, instead of
    ending it. ``reconciler`` stops agents whose issues a person took away (by default
    one that reads the board every ``RECONCILE_SECONDS`` while an agent runs)."""
    options = options or SessionOptions.from_config(project.config)
    store = project.store
    # What a killed run left: locks on issues this session may never ask for again.
    release_stale_locks(store)
    lead = Lead(project, root, options)
    interrupt = options.interrupt
    # One snapshot for both looks at the root's group (no agent runs between them): the
    # plan reads what the look at merges read, or wrote, once.
    with project.tracker.snapshot():
        look_at_merges(project, root)
        run, resumed = lead.open_run()
    if run is None:
        why, escalated = lead.nothing_to_do()
        return SessionResult(None, Ending.NOTHING_TO_DO, why, escalated=escalated)
    attributes = {"ralph.root": root, "ralph.run": run.id, "ralph.mode": options.mode}
    with span("ralph.run", attributes, run=run_trace(project, run)) as traced:
        workers = start_crew(project, runtime, run, crew, options)
        roster = _team_roster(project, runtime, run, crew, workers, options)
        reconciler = reconciler or Reconciler(BoardReads(project.tracker))
        verdict, cursor = _watch(store, lead, run, workers, options, reconciler, roster)
        ending = verdict.ending or Ending.INTERRUPTED
        traced.set("ralph.ending", ending.value)
        traced.set("ralph.resumed", resumed)
    store.request_shutdown(run.id)
    if ending is Ending.FINISHED:
        run = store.finish_run(run.id, RunStatus.FINISHED)
    _wind_down(workers, interrupt)
    release_stale_locks(store)  # those of holders that died while this session ran
    if options.observer is not None:
        options.observer(run, store.events(run.id, cursor))
    outcome = run_outcome(store.get_run(run.id), store.list_tasks(run.id))
    notify_ending(project, root, run.id, ending, verdict, outcome)
    return SessionResult(
        store.get_run(run.id),
        ending,
        verdict.detail,
        resumed,
        tuple(g.issues[0] for g in verdict.gates),
        tuple((t.issues[0], t.waiting_for or "") for t in verdict.waiting),
        claims=sum(w.stats.claims for w in workers.workers),
        idle_waits=sum(w.stats.idle_waits for w in workers.workers),
        workers=tuple(w.name for w in workers.workers),
        roster=roster.lines() if roster is not None else (),
    )


def look_at_merges(project: Project, root: int) -> list[str]:
    """Before a session plans ``root``: a merge of it or its sub-issues left half-way
    finished, a Done whose change is not merged sent back (``phases.MergeLooks``), so
    the run is planned from where the work really is. What it did, a line each."""
    try:
        issue = project.tracker.get_issue(root)
        issues = [issue, *(project.tracker.get_issue(n) for n in issue.sub_issues)]
    except RalphError as exc:  # the session's own read says what is wrong
        logger.warning("cannot look at the root's merges", extra={"root": root, "error": str(exc)})
        return []
    said = [
        line
        for synced in MergeLooks(project).look(issues, every=True)
        if synced.changed
        for line in synced.lines
    ]
    for line in said:
        logger.info(line, extra={"root": root})
    return said


def _wind_down(workers: Crew, interrupt: Interrupt) -> None:
    """Wait for the workers to stop after the shutdown: busy ones finish their task (each
    bounded by its agent's limits); idle ones see the shutdown within their idle wait, so
    one idle past ``STOP_GRACE_SECONDS`` is not waited for (its thread is a daemon). A
    second Ctrl-C meanwhile hands the running tasks back."""
    idle_since: float | None = None
    while not workers.join(LOOK_SECONDS):
        if interrupt.aborting.is_set():
            workers.release_claims()
            return
        if workers.busy:
            idle_since = None
            continue
        idle_since = idle_since or time.monotonic()
        if time.monotonic() - idle_since > STOP_GRACE_SECONDS:
            logger.warning("idle workers did not stop after the shutdown; not waiting")
            return


def _watch(
    store: TaskStore,
    lead: Lead,
    run: Run,
    workers: Crew,
    options: SessionOptions,
    reconciler: Reconciler,
    roster: Roster | None = None,
) -> tuple[RunVerdict, int]:
    """Watch until the lead says the session is over, sizing a team's roster to the
    run at each look; returns the lead's verdict and the last event seen."""
    cursor = 0
    interrupt, observer, phases = options.interrupt, options.observer, options.phases
    while True:
        reconciler.look([workers])
        events = store.wait_for_events(run.id, cursor, LOOK_SECONDS)
        if events:
            cursor = events[-1].id
            if observer is not None:
                observer(run, events)
        if interrupt.aborting.is_set():
            workers.release_claims()
            return RunVerdict(
                Ending.INTERRUPTED, "interrupted; running tasks were handed back"
            ), cursor
        if interrupt.stopping.is_set() and not workers.busy:
            if interrupt.unusable:
                return RunVerdict(Ending.AGENT_UNUSABLE, interrupt.unusable), cursor
            return RunVerdict(
                Ending.INTERRUPTED, "interrupted; tasks in hand finished first"
            ), cursor
        if workers.busy:
            stop_at_cap(store, options.repo, options.budget, run.id, workers)
        verdict = lead.look(run.id)
        if verdict.ending is not None:
            return verdict, cursor
        if roster is not None and not interrupt.stopping.is_set():
            roster.look(lead.seen)
        if (
            phases is not None
            and not workers.busy
            and _phases_done(store, run.id, phases, wait=options.wait)
        ):
            listed = ", ".join(sorted(phases))
            return RunVerdict(Ending.PHASES_DONE, f"nothing left to do in {listed}"), cursor


def _phases_done(
    store: TaskStore, run_id: int, phases: Collection[str], *, wait: bool = False
) -> bool:
    """Nothing runs and no task of ``phases`` is ready: none ever will be, as only tasks
    of other phases could make one ready. (A task waiting for a retry's backoff, or for
    checks to finish, is ready: its dependencies are done; one waiting for a person is
    not, unless the session waits for people.)"""
    tasks = store.list_tasks(run_id)
    done = {t.id for t in tasks if t.status is TaskStatus.DONE}
    if any(t.status is TaskStatus.RUNNING for t in tasks):
        return False
    now = time.time()
    return not any(
        t.status is TaskStatus.PENDING
        and t.kind in phases
        and done.issuperset(t.deps)
        and (wait or not t.waiting_for_person or t.not_before <= now)
        for t in tasks
    )
