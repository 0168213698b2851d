"""Routing rules (``.ralph-routing.yml``, the original's format): where an issue goes,
by its repository, labels and type. Pure: rules are read from text, evaluated on what
the caller tells of an issue; applying a decision is ``ralph.board``'s work."""

from __future__ import annotations

from ralph.routing._parse import ROUTING_FILE, parse_routing
from ralph.routing._rules import (
    IssueContext,
    IssueType,
    MatchCriteria,
    MatchedRule,
    RoutingAction,
    RoutingConfig,
    RoutingEvaluation,
    RoutingRule,
    evaluate_rules,
    repo_matches,
)

__all__ = [
    "ROUTING_FILE",
    "IssueContext",
    "IssueType",
    "MatchCriteria",
    "MatchedRule",
    "RoutingAction",
    "RoutingConfig",
    "RoutingEvaluation",
    "RoutingRule",
    "evaluate_rules",
    "parse_routing",
    "repo_matches",
]
