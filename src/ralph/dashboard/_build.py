"""The pipeline dashboard (docs/compatibility.md, DB cases): issues per state, health
warnings, archive statistics. Pure: the caller supplies the issues and the current time.

One deliberate change from the original: ``health.ok`` ignores info-level warnings
(empty pipeline phases), which made "all clear" practically unreachable.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph.workflow import (
    HUMAN_STATES,
    LOCK_STATES,
    OVERSIZED_ESTIMATES,
    STATE_ORDER,
    TERMINAL_STATES,
    WorkflowState,
)

__all__ = [
    "DAY_SECONDS",
    "Dashboard",
    "DashboardItem",
    "HealthConfig",
    "HealthWarning",
    "IssueSnapshot",
    "PhaseSnapshot",
    "ProjectBreakdown",
    "Severity",
    "WarningType",
    "aggregate_by_phase",
    "build_dashboard",
    "detect_cross_project_health",
    "detect_health_issues",
]

DAY_SECONDS = 86_400.0
_S = WorkflowState
#: Every board shows these buckets, in this order, even when empty.
PHASE_ORDER: tuple[str, ...] = (*STATE_ORDER, _S.HUMAN_NEEDED, _S.CANCELED)
UNKNOWN = "Unknown"
_PRIORITY_RANK = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
_NO_GAP = frozenset({_S.DONE, _S.CANCELED, _S.BACKLOG, _S.HUMAN_NEEDED})
_NOT_IN_PIPELINE = frozenset({_S.BACKLOG, _S.DONE, _S.CANCELED, _S.HUMAN_NEEDED})
#: What counts as a board's active work when boards are compared.
_ACTIVE = frozenset(STATE_ORDER) - {_S.BACKLOG, _S.DONE, _S.CANCELED}
#: A board with more than this many times another's active work is out of balance.
_UNBALANCED = 3


class Severity(enum.StrEnum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)


class WarningType(enum.StrEnum):
    WIP_EXCEEDED = "wip_exceeded"
    STUCK_ISSUE = "stuck_issue"
    BLOCKED = "blocked"
    PIPELINE_GAP = "pipeline_gap"
    LOCK_COLLISION = "lock_collision"
    OVERSIZED_IN_PIPELINE = "oversized_in_pipeline"
    UNBALANCED_WORKLOAD = "unbalanced_workload"
    NEEDS_A_PERSON = "needs_a_person"


@dataclass(frozen=True, kw_only=True)
class DashboardItem:
    """One issue as the dashboard sees it. Times are epoch seconds."""

    number: int
    title: str = ""
    updated_at: float
    closed_at: float | None = None
    workflow_state: str | None = None
    priority: str | None = None
    estimate: str | None = None
    assignees: tuple[str, ...] = ()
    #: (number, workflow state) of each issue blocking this one.
    blocked_by: tuple[tuple[int, str | None], ...] = ()
    #: The board the item was read from, when several are (``ralph status --projects``).
    project_number: int | None = None
    project_title: str = ""
    #: The issue whose sub-issues are worked together (a group counts as one lock).
    parent: int | None = None
    #: Why the issue waits in Human Needed (its ``Escalation:`` comment), when known.
    escalation_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class HealthConfig:
    stuck_threshold_hours: float = 48.0
    critical_stuck_hours: float = 96.0
    wip_limits: Mapping[str, int] = field(default_factory=dict)
    done_window_days: float = 7.0
    archive_threshold_days: float = 14.0


@dataclass(frozen=True, kw_only=True)
class IssueSnapshot:
    number: int
    title: str
    priority: str | None
    estimate: str | None
    assignees: tuple[str, ...]
    age_hours: float
    is_locked: bool
    blocked_by: tuple[tuple[int, str | None], ...]
    parent: int | None = None
    escalation_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "priority": self.priority,
            "estimate": self.estimate,
            "assignees": list(self.assignees),
            "ageHours": round(self.age_hours, 2),
            "isLocked": self.is_locked,
            "blockedBy": [{"number": n, "workflowState": s} for n, s in self.blocked_by],
            "escalationReason": self.escalation_reason,
        }


@dataclass(frozen=True, kw_only=True)
class PhaseSnapshot:
    state: str
    issues: tuple[IssueSnapshot, ...]

    @property
    def count(self) -> int:
        return len(self.issues)

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "count": self.count,
            "issues": [i.to_dict() for i in self.issues],
        }


@dataclass(frozen=True)
class HealthWarning:
    type: WarningType
    severity: Severity
    message: str
    issues: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type.value,
            "severity": self.severity.value,
            "message": self.message,
            "issues": list(self.issues),
        }


@dataclass(frozen=True, kw_only=True)
class ProjectBreakdown:
    """One board's phases and warnings, when the items come from several."""

    number: int
    title: str
    phases: tuple[PhaseSnapshot, ...]
    warnings: tuple[HealthWarning, ...]

    @property
    def active(self) -> int:
        """Items being worked: in a pipeline state past Backlog, not Done or Canceled."""
        return sum(p.count for p in self.phases if p.state in _ACTIVE)

    def to_dict(self) -> dict[str, Any]:
        return {
            "projectTitle": self.title,
            "phases": [p.to_dict() for p in self.phases],
            "health": {
                "ok": all(w.severity is Severity.INFO for w in self.warnings),
                "warnings": [w.to_dict() for w in self.warnings],
            },
        }


@dataclass(frozen=True, kw_only=True)
class Dashboard:
    generated_at: float
    total_issues: int
    phases: tuple[PhaseSnapshot, ...]
    warnings: tuple[HealthWarning, ...]
    archive_eligible: tuple[tuple[int, str, str, int], ...]
    recently_completed: int
    archive_threshold_days: float
    #: Per board, by number, when the items come from two or more boards.
    projects: tuple[ProjectBreakdown, ...] = ()

    @property
    def ok(self) -> bool:
        """Healthy unless something needs attention; info notes (empty phases) do not."""
        return all(w.severity is Severity.INFO for w in self.warnings)

    def phase(self, state: str) -> PhaseSnapshot:
        return next(p for p in self.phases if p.state == state)

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "generatedAt": self.generated_at,
            "totalIssues": self.total_issues,
            "phases": [p.to_dict() for p in self.phases],
            "health": {"ok": self.ok, "warnings": [w.to_dict() for w in self.warnings]},
            "archive": {
                "eligibleForArchive": len(self.archive_eligible),
                "eligibleItems": [
                    {"number": n, "title": t, "workflowState": s, "staleDays": d}
                    for n, t, s, d in self.archive_eligible
                ],
                "recentlyCompleted": self.recently_completed,
                "archiveThresholdDays": self.archive_threshold_days,
            },
        }
        if self.projects:
            found["projectBreakdowns"] = {str(p.number): p.to_dict() for p in self.projects}
        return found


def _finished_at(item: DashboardItem) -> float:
    return item.closed_at if item.closed_at is not None else item.updated_at


def aggregate_by_phase(
    items: Iterable[DashboardItem], now: float, config: HealthConfig
) -> tuple[PhaseSnapshot, ...]:
    """The 11 state buckets in pipeline order (then Unknown and any unknown names, in the
    order first seen); Done and Canceled only within the done window; each bucket by
    priority (stable)."""
    buckets: dict[str, list[DashboardItem]] = {state: [] for state in PHASE_ORDER}
    window = config.done_window_days * DAY_SECONDS
    for item in items:
        state = item.workflow_state or UNKNOWN
        if state in (_S.DONE, _S.CANCELED) and now - _finished_at(item) > window:
            continue
        buckets.setdefault(state, []).append(item)
    return tuple(
        PhaseSnapshot(
            state=state,
            issues=tuple(
                IssueSnapshot(
                    number=i.number,
                    title=i.title,
                    priority=i.priority,
                    estimate=i.estimate,
                    assignees=i.assignees,
                    age_hours=max(0.0, (now - i.updated_at) / 3600),
                    is_locked=state in LOCK_STATES,
                    blocked_by=i.blocked_by,
                    parent=i.parent,
                    escalation_reason=i.escalation_reason,
                )
                for i in sorted(members, key=lambda i: _PRIORITY_RANK.get(i.priority or "", 99))
            ),
        )
        for state, members in buckets.items()
    )


def _round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def _lock_groups(issues: Sequence[IssueSnapshot]) -> int:
    """How many pieces of work hold a lock state: sub-issues of one parent are worked
    together (a group), so they count once."""
    return len(
        {("group", i.parent) if i.parent is not None else ("issue", i.number) for i in issues}
    )


def _in_flight(phases: Sequence[PhaseSnapshot]) -> bool:
    """Work is moving through the pipeline: some issue is past Backlog and not finished
    or waiting for a person. Only then is an empty state a gap worth a note."""
    return any(p.count for p in phases if p.state in STATE_ORDER and p.state not in _NO_GAP)


def detect_health_issues(
    phases: Sequence[PhaseSnapshot], config: HealthConfig
) -> tuple[HealthWarning, ...]:
    """Warnings in phase order, then sorted by severity (critical first), stably."""
    warnings: list[HealthWarning] = []
    in_flight = _in_flight(phases)
    for phase in phases:
        state, count = phase.state, phase.count
        numbers = tuple(i.number for i in phase.issues)
        limit = config.wip_limits.get(state)
        if limit is not None and count > limit:
            warnings.append(
                HealthWarning(
                    WarningType.WIP_EXCEEDED,
                    Severity.WARNING,
                    f"{state}: {count} issue{'' if count == 1 else 's'} (WIP limit: {limit})",
                    numbers,
                )
            )
        groups = _lock_groups(phase.issues) if state in LOCK_STATES else 0
        if groups > 1:
            what = f"{count} issues" if groups == count else f"{count} issues in {groups} groups"
            warnings.append(
                HealthWarning(
                    WarningType.LOCK_COLLISION,
                    Severity.CRITICAL,
                    f"{state}: {what} in lock state (expected at most 1)",
                    numbers,
                )
            )
        if in_flight and count == 0 and state in STATE_ORDER and state not in _NO_GAP:
            warnings.append(
                HealthWarning(
                    WarningType.PIPELINE_GAP, Severity.INFO, f"{state}: empty (pipeline gap)"
                )
            )
        if state == _S.HUMAN_NEEDED:
            warnings += [_needs_a_person(issue) for issue in phase.issues]
        for issue in phase.issues:
            warnings += _issue_warnings(state, issue, config)
    return tuple(sorted(warnings, key=lambda w: w.severity.rank))


def _needs_a_person(issue: IssueSnapshot) -> HealthWarning:
    reason = issue.escalation_reason or "no reason recorded"
    return HealthWarning(
        WarningType.NEEDS_A_PERSON,
        Severity.WARNING,
        f"#{issue.number} needs a person: {reason}",
        (issue.number,),
    )


def _issue_warnings(state: str, issue: IssueSnapshot, config: HealthConfig) -> list[HealthWarning]:
    found = []
    if state not in TERMINAL_STATES and state not in HUMAN_STATES:
        age = issue.age_hours
        if age > config.critical_stuck_hours:
            found.append(
                HealthWarning(
                    WarningType.STUCK_ISSUE,
                    Severity.CRITICAL,
                    f"#{issue.number} stuck in {state} for {_round_half_up(age)}h "
                    f"(critical threshold: {config.critical_stuck_hours:g}h)",
                    (issue.number,),
                )
            )
        elif age > config.stuck_threshold_hours:
            found.append(
                HealthWarning(
                    WarningType.STUCK_ISSUE,
                    Severity.WARNING,
                    f"#{issue.number} stuck in {state} for {_round_half_up(age)}h "
                    f"(threshold: {config.stuck_threshold_hours:g}h)",
                    (issue.number,),
                )
            )
    open_blockers = [n for n, s in issue.blocked_by if s not in TERMINAL_STATES]
    if open_blockers:
        listed = ", ".join(f"#{n}" for n in open_blockers)
        found.append(
            HealthWarning(
                WarningType.BLOCKED,
                Severity.WARNING,
                f"#{issue.number} blocked by {listed}",
                (issue.number,),
            )
        )
    if issue.estimate in OVERSIZED_ESTIMATES and state not in _NOT_IN_PIPELINE:
        found.append(
            HealthWarning(
                WarningType.OVERSIZED_IN_PIPELINE,
                Severity.WARNING,
                f"#{issue.number} has {issue.estimate} estimate in {state} "
                "(should be split to XS/S)",
                (issue.number,),
            )
        )
    return found


def detect_cross_project_health(
    projects: Sequence[ProjectBreakdown],
) -> tuple[HealthWarning, ...]:
    """One ``unbalanced_workload`` warning when, among boards with active work, the
    busiest has more than three times the least busy's (the first of each, by number)."""
    active = [(p.number, p.active) for p in sorted(projects, key=lambda p: p.number)]
    active = [(n, count) for n, count in active if count > 0]
    if len(active) < 2:
        return ()
    busiest = max(active, key=lambda a: a[1])
    idlest = min(active, key=lambda a: a[1])
    if busiest[1] <= _UNBALANCED * idlest[1]:
        return ()
    return (
        HealthWarning(
            WarningType.UNBALANCED_WORKLOAD,
            Severity.WARNING,
            f"Unbalanced workload: project {busiest[0]} has {busiest[1]} active items vs "
            f"project {idlest[0]} with {idlest[1]}",
        ),
    )


def _breakdowns(
    items: Sequence[DashboardItem], now: float, config: HealthConfig
) -> tuple[ProjectBreakdown, ...]:
    by_project: dict[int, list[DashboardItem]] = {}
    for item in items:
        if item.project_number is not None:
            by_project.setdefault(item.project_number, []).append(item)
    if len(by_project) < 2:
        return ()
    found = []
    for number in sorted(by_project):
        members = by_project[number]
        phases = aggregate_by_phase(members, now, config)
        found.append(
            ProjectBreakdown(
                number=number,
                title=members[0].project_title or f"Project {number}",
                phases=phases,
                warnings=detect_health_issues(phases, config),
            )
        )
    return tuple(found)


def build_dashboard(
    items: Sequence[DashboardItem], *, now: float, config: HealthConfig | None = None
) -> Dashboard:
    """The board at ``now``; items from two or more boards (``project_number``) also get
    a breakdown per board and the cross-board balance check."""
    config = config or HealthConfig()
    phases = aggregate_by_phase(items, now, config)
    projects = _breakdowns(items, now, config)
    warnings = detect_health_issues(phases, config) + detect_cross_project_health(projects)
    eligible = []
    recent = 0
    for item in items:
        if item.workflow_state not in (_S.DONE, _S.CANCELED):
            continue
        age = now - _finished_at(item)
        if age > config.archive_threshold_days * DAY_SECONDS:
            stale_days = math.floor(age / DAY_SECONDS)
            eligible.append((item.number, item.title, item.workflow_state or "", stale_days))
        if age <= config.done_window_days * DAY_SECONDS:
            recent += 1
    eligible.sort(key=lambda e: e[3], reverse=True)
    return Dashboard(
        generated_at=now,
        total_issues=len(items),
        phases=phases,
        warnings=tuple(sorted(warnings, key=lambda w: w.severity.rank)),
        archive_eligible=tuple(eligible),
        recently_completed=recent,
        archive_threshold_days=config.archive_threshold_days,
        projects=projects,
    )
