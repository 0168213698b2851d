"""What ``ralph serve`` does for the board beside running roots, as ``ralph route`` and
``ralph hygiene`` do by hand: each new issue is routed by the project's
``.ralph-routing.yml`` (when it has one) before the board is read for work, and every
``hygiene_interval`` hours (off by default) the hygiene report's findings go to the
service's log."""

from __future__ import annotations

import time
from collections.abc import Callable

from ralph.board import apply_route, hygiene_report, load_routing, route_issue
from ralph.dashboard import HygieneConfig, HygieneReport
from ralph.errors import RalphError
from ralph.project import Project
from ralph.routing import ROUTING_FILE, RoutingConfig
from ralph.tracker import IssueQuery
from ralph.workflow import WorkflowState

__all__ = ["BoardUpkeep", "hygiene_summary"]

_HOUR = 3600.0
#: The states of an issue nobody has taken on yet.
_NEW = frozenset({None, WorkflowState.BACKLOG})


class BoardUpkeep:
    """Routing and hygiene for one service; ``note`` says what they did."""

    def __init__(
        self,
        project: Project,
        note: Callable[[str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """A routing file with a mistake refuses to start, naming the line (as
        ``ralph route`` does): the service would otherwise route nothing, unseen."""
        self.project = project
        self.note = note
        self.clock = clock
        path = project.config.root / ROUTING_FILE
        self.rules: RoutingConfig | None = (
            load_routing(path, shown=ROUTING_FILE) if path.is_file() else None
        )
        #: Issues this service routed (or found nothing for): each new issue once.
        self.routed: set[int] = set()
        self.hygiene_every = project.config.hygiene_interval * _HOUR
        self.next_hygiene = clock()  # the first report as the service starts

    def run(self) -> None:
        """Route what is new, and write the hygiene report when it is due."""
        if self.rules is not None:
            self._route(self.rules)
        if self.hygiene_every and self.clock() >= self.next_hygiene:
            self.next_hygiene = self.clock() + self.hygiene_every
            config = HygieneConfig(wip_limits=self.project.config.wip_limits)
            self.note(hygiene_summary(hygiene_report(self.project.tracker, config)))

    def _route(self, rules: RoutingConfig) -> None:
        tracker = self.project.tracker
        for issue in tracker.list_issues(IssueQuery()):
            if issue.number in self.routed or issue.workflow_state not in _NEW:
                continue
            self.routed.add(issue.number)  # once, whatever comes of it
            try:
                decision = route_issue(tracker, rules, issue.number)
                if not decision.matched:
                    continue
                done = apply_route(tracker, decision, actor="ralph serve")
            except RalphError as exc:
                self.note(f"#{issue.number}: not routed: {exc}")
                continue
            steps = "; ".join(f"{s.action} {s.target}: {s.outcome}" for s in done)
            self.note(f"#{issue.number}: routed by {ROUTING_FILE} ({steps})")


def hygiene_summary(report: HygieneReport) -> str:
    """The hygiene report in one line of counts; ``ralph hygiene`` lists the issues."""
    found = [
        (len(report.archive_candidates), "to archive", "to archive"),
        (len(report.stale_items), "stale", "stale"),
        (len(report.orphaned_items), "orphaned", "orphaned"),
        (len(report.missing_estimate), "without an estimate", "without an estimate"),
        (len(report.missing_priority), "without a priority", "without a priority"),
        (len(report.wip_violations), "state over its WIP limit", "states over their WIP limit"),
        (len(report.duplicate_candidates), "likely duplicate pair", "likely duplicate pairs"),
    ]
    listed = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in found if n)
    if not listed:
        total = report.total_items
        return f"hygiene: the board is tidy ({total} issue{'' if total == 1 else 's'})"
    return f"hygiene: {listed}; `ralph hygiene` lists them"
