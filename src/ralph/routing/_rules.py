"""Routing rules and their evaluation (the original's ``routing-engine``, docs/compatibility.md
RT cases): top to bottom, disabled rules skipped, a rule matching when every criterion it
names holds (inverted by ``negate``), stopping at the first match unless told not to."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph.workflow import WorkflowState

__all__ = [
    "ROUTING_FILE",
    "IssueToRoute",
    "IssueType",
    "MatchCriteria",
    "MatchedRule",
    "RoutingAction",
    "RoutingConfig",
    "RoutingEvaluation",
    "RoutingRule",
    "evaluate_rules",
    "repo_matches",
]

#: Where a project keeps its rules, at its root (the original's name).
ROUTING_FILE = ".ralph-routing.yml"


class IssueType(enum.StrEnum):
    ISSUE = "issue"
    PULL_REQUEST = "pull_request"
    DRAFT_ISSUE = "draft_issue"


@dataclass(frozen=True, kw_only=True)
class MatchCriteria:
    """What a rule looks at; a criterion left out matches anything."""

    #: A glob over ``owner/name``: ``*`` within one segment, ``**`` across them, ``?``
    #: one character; case-insensitive, anchored.
    repo: str | None = None
    #: At least one of these labels (case-insensitive).
    labels_any: tuple[str, ...] = ()
    #: Every one of these labels (case-insensitive).
    labels_all: tuple[str, ...] = ()
    issue_type: IssueType | None = None
    negate: bool = False

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.repo is not None:
            found["repo"] = self.repo
        if self.labels_any or self.labels_all:
            found["labels"] = {
                **({"any": list(self.labels_any)} if self.labels_any else {}),
                **({"all": list(self.labels_all)} if self.labels_all else {}),
            }
        if self.issue_type is not None:
            found["issueType"] = self.issue_type.value
        if self.negate:
            found["negate"] = True
        return found


@dataclass(frozen=True, kw_only=True)
class RoutingAction:
    """Where a matching issue goes: onto boards, into a workflow state, with labels."""

    project_numbers: tuple[int, ...] = ()
    workflow_state: WorkflowState | None = None
    labels: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.project_numbers:
            found["projectNumbers"] = list(self.project_numbers)
        if self.workflow_state is not None:
            found["workflowState"] = self.workflow_state.value
        if self.labels:
            found["labels"] = list(self.labels)
        return found


@dataclass(frozen=True, kw_only=True)
class RoutingRule:
    match: MatchCriteria
    action: RoutingAction
    name: str | None = None
    enabled: bool = True


@dataclass(frozen=True, kw_only=True)
class RoutingConfig:
    rules: tuple[RoutingRule, ...] = ()
    stop_on_first_match: bool = True


@dataclass(frozen=True)
class IssueToRoute:
    """What the rules see of an issue."""

    repo: str
    labels: Sequence[str] = ()
    issue_type: IssueType = IssueType.ISSUE


@dataclass(frozen=True)
class MatchedRule:
    rule: RoutingRule
    #: The rule's position in the file, from 0.
    index: int

    @property
    def label(self) -> str:
        """``rule 1 "bugs"``: counted from 1, as a person reads the file."""
        named = f' "{self.rule.name}"' if self.rule.name else ""
        return f"rule {self.index + 1}{named}"


@dataclass(frozen=True)
class RoutingEvaluation:
    matched: tuple[MatchedRule, ...] = field(default_factory=tuple)
    #: True when evaluation stopped at the first match (``stopOnFirstMatch``).
    stopped_early: bool = False


def _glob(pattern: str) -> re.Pattern[str]:
    parts = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            parts.append(".*")
            i += 2
            continue
        char = pattern[i]
        parts.append({"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)))
        i += 1
    return re.compile("".join(parts), re.IGNORECASE)


def repo_matches(pattern: str, repo: str) -> bool:
    return _glob(pattern).fullmatch(repo) is not None


def _matches(criteria: MatchCriteria, issue: IssueToRoute) -> bool:
    labels = {label.casefold() for label in issue.labels}
    found = True
    if criteria.repo is not None:
        found = found and repo_matches(criteria.repo, issue.repo)
    if criteria.labels_any:
        found = found and any(label.casefold() in labels for label in criteria.labels_any)
    if criteria.labels_all:
        found = found and all(label.casefold() in labels for label in criteria.labels_all)
    if criteria.issue_type is not None:
        found = found and criteria.issue_type is issue.issue_type
    return found != criteria.negate


def evaluate_rules(config: RoutingConfig, issue: IssueToRoute) -> RoutingEvaluation:
    matched = []
    for index, rule in enumerate(config.rules):
        if not rule.enabled or not _matches(rule.match, issue):
            continue
        matched.append(MatchedRule(rule, index))
        if config.stop_on_first_match:
            return RoutingEvaluation(tuple(matched), stopped_early=True)
    return RoutingEvaluation(tuple(matched), stopped_early=False)
