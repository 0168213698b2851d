"""Routing an issue by ``.ralph-routing.yml``: reading the file, deciding where the issue
goes (the pure rules of ``ralph.routing``) and applying that decision on the tracker.

A decision is checked whole before anything is written: a workflow state the issue
cannot move to refuses the routing, so it is never half applied. Board actions on a
tracker with one board are skipped with the reason; the rest applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import InvalidInput, WorkflowError
from ralph.routing import (
    IssueToRoute,
    IssueType,
    RoutingConfig,
    RoutingEvaluation,
    evaluate_rules,
    parse_routing,
)
from ralph.tracker import Issue, Tracker
from ralph.workflow import WorkflowState, plan_transition

__all__ = ["RouteDecision", "RouteStep", "apply_route", "load_routing", "route_issue"]

#: The command routing moves issues under: a person's, through the transition matrix.
_COMMAND = "human"


def load_routing(path: Path, *, shown: str | None = None) -> RoutingConfig:
    """The rules in ``path`` (``shown``: how errors name it); every problem with the
    file is one InvalidInput saying what to do."""
    name = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(
            f"no routing file {name}; write one (docs/service.md, Routing) or name it with --file"
        ) from None
    except IsADirectoryError:
        raise InvalidInput(f"{name} is a folder, not a routing file; give the .yml file") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{name} is not UTF-8 text; save it as UTF-8") from None
    except (OSError, ValueError) as exc:  # a NUL byte in the name, no permission...
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InvalidInput(f"cannot read the routing file {name!r}: {reason}") from None
    return parse_routing(text, source=name)


@dataclass(frozen=True)
class RouteStep:
    #: "project", "state" or "labels".
    action: str
    #: What it sets: ``#3``, ``Research Needed``, ``bug, triage``.
    target: str
    #: After ``apply_route``: "added", "moved from Backlog", "already", "skipped: why".
    outcome: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "target": self.target, "outcome": self.outcome or None}


@dataclass(frozen=True)
class RouteDecision:
    number: int
    title: str
    context: IssueToRoute
    evaluation: RoutingEvaluation
    projects: tuple[int, ...]
    state: WorkflowState | None
    labels: tuple[str, ...]
    #: Why the state cannot be applied (the transition matrix's answer), if it cannot.
    refusal: str | None = None

    @property
    def matched(self) -> bool:
        return bool(self.evaluation.matched)

    def steps(self) -> tuple[RouteStep, ...]:
        """What applying it would do, in the order it is done."""
        found = [RouteStep("project", f"#{p}") for p in self.projects]
        if self.state is not None:
            found.append(RouteStep("state", self.state.value))
        if self.labels:
            found.append(RouteStep("labels", ", ".join(self.labels)))
        return tuple(found)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "issue": {
                "repo": self.context.repo,
                "labels": list(self.context.labels),
                "issueType": self.context.issue_type.value,
            },
            "matchedRules": [
                {
                    "rule": m.rule.name,
                    "ruleIndex": m.index,
                    "match": m.rule.match.to_dict(),
                    "actions": m.rule.action.to_dict(),
                }
                for m in self.evaluation.matched
            ],
            "stoppedEarly": self.evaluation.stopped_early,
            "refusal": self.refusal,
        }


def _context(tracker: Tracker, issue: Issue) -> IssueToRoute:
    return IssueToRoute(tracker.repository_name, issue.labels, IssueType.ISSUE)


def route_issue(tracker: Tracker, rules: RoutingConfig, number: int) -> RouteDecision:
    """Where issue ``number`` goes by ``rules``, nothing written. Several matching rules
    (``stopOnFirstMatch: false``) add up: every board and label; the first state."""
    issue = tracker.get_issue(number)
    context = _context(tracker, issue)
    evaluation = evaluate_rules(rules, context)
    projects: list[int] = []
    labels: list[str] = []
    state: WorkflowState | None = None
    for matched in evaluation.matched:
        action = matched.rule.action
        projects += action.project_numbers
        labels += action.labels
        state = state or action.workflow_state
    have = {label.casefold() for label in issue.labels}
    missing = [label for label in dict.fromkeys(labels) if label.casefold() not in have]
    refusal = None
    if state is not None and state != issue.workflow_state:
        current = issue.workflow_state.value if issue.workflow_state else None
        try:
            plan_transition(current, state.value, _COMMAND)
        except WorkflowError as exc:
            refusal = f"#{number} cannot be routed to {state.value}: {exc}"
    return RouteDecision(
        number=number,
        title=issue.title,
        context=context,
        evaluation=evaluation,
        projects=tuple(dict.fromkeys(projects)),
        state=state,
        labels=tuple(missing),
        refusal=refusal,
    )


def apply_route(
    tracker: Tracker, decision: RouteDecision, *, actor: str = "ralph route"
) -> tuple[RouteStep, ...]:
    """Apply ``decision``: boards, then the state (audited, through the transition
    matrix), then labels. A refused state refuses everything, before any write."""
    if decision.refusal is not None:
        raise InvalidInput(decision.refusal)
    done: list[RouteStep] = []
    number = decision.number
    for project in decision.projects:
        target = f"#{project}"
        if not tracker.several_boards:
            done.append(
                RouteStep("project", target, f"skipped: the {tracker.kind} tracker has one board")
            )
            continue
        added = tracker.add_to_project(number, project, state=decision.state)
        done.append(RouteStep("project", target, "added" if added else "already there"))
    if decision.state is not None:
        change = tracker.set_state(number, decision.state, command=_COMMAND, actor=actor)
        before = change.previous.value if change.previous else "no state"
        outcome = f"moved from {before}" if change.changed else "already"
        done.append(RouteStep("state", decision.state.value, outcome))
    if decision.labels:
        labels = tracker.get_issue(number).labels
        tracker.update_issue(number, labels=[*labels, *decision.labels])
        done.append(RouteStep("labels", ", ".join(decision.labels), "added"))
    return tuple(done)
