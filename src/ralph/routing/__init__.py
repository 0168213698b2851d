"""Routing rules (``.ralph-routing.yml``, the original's format): where an issue goes,
by its repository, labels and type. Pure: rules are read from text, evaluated on what
the caller tells of an issue; applying a decision is ``ralph.board``'s work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.routing._parse import parse_routing
    from ralph.routing._rules import (
        ROUTING_FILE,
        IssueToRoute,
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
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

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
    "parse_routing",
    "repo_matches",
]
