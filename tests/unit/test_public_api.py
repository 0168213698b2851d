"""The public API is small and deliberate: each public module's ``__all__`` is pinned
here, and every name in it exists. A change to the API changes this file."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "ralph": [
        "Estimate",
        "IssueState",
        "PipelinePosition",
        "Priority",
        "RalphError",
        "ReviewMode",
        "TaskGraph",
        "TaskSpec",
        "WorkflowState",
        "__version__",
        "build_task_graph",
        "detect_group",
        "detect_position",
        "detect_work_streams",
    ],
    "ralph.errors": [
        "ConfigError",
        "DependencyCycle",
        "GitError",
        "GraphError",
        "InvalidInput",
        "InvalidTransition",
        "IssueLocked",
        "IssueNotFound",
        "LeaseLost",
        "MergeConflict",
        "PipelineError",
        "PullRequestNotFound",
        "PullRequestNotOpen",
        "RalphError",
        "RunNotFound",
        "StateConflict",
        "StateResolutionError",
        "StoreUnavailable",
        "TaskBlocked",
        "TaskNotClaimable",
        "TaskNotFound",
        "TaskStoreError",
        "TrackerError",
        "UnknownCommand",
        "UnknownState",
        "WorkflowError",
    ],
    "ralph.tracker": [
        "UNKNOWN_STATE",
        "AdvanceResult",
        "CloseReason",
        "Comment",
        "Issue",
        "IssueOrder",
        "IssueQuery",
        "IssueStatus",
        "LocalTracker",
        "MemoryTracker",
        "MergeStrategy",
        "ParentAdvance",
        "PullRequest",
        "PullRequestState",
        "StateChange",
        "Tracker",
        "closing_references",
        "iso",
    ],
    "ralph.git": ["GitRepo", "MergeOutcome", "MergeRefused"],
    "ralph.config": [
        "CONFIG_FILE",
        "Config",
        "InitResult",
        "find_config",
        "init_project",
        "load_config",
        "open_tracker",
        "render_config",
    ],
    "ralph.tasks": [
        "DEFAULT_LEASE_SECONDS",
        "DEFAULT_MAX_ATTEMPTS",
        "DEFAULT_STORE_URL",
        "TERMINAL_STATUSES",
        "Claim",
        "Event",
        "EventKind",
        "IssueLock",
        "IssueLocked",
        "LeaseLost",
        "MemoryStore",
        "Message",
        "MessageKind",
        "RetryPolicy",
        "Run",
        "RunNotFound",
        "RunStatus",
        "StoreUnavailable",
        "Task",
        "TaskBlocked",
        "TaskNotClaimable",
        "TaskNotFound",
        "TaskStatus",
        "TaskStore",
        "TaskStoreError",
        "open_store",
        "redact_url",
    ],
    "ralph.workflow": [
        "ALLOWED_TRANSITIONS",
        "COMMANDS",
        "HUMAN_STATES",
        "INTENTS",
        "LOCK_STATES",
        "OVERSIZED_ESTIMATES",
        "PARENT_GATE_STATES",
        "STATE_ORDER",
        "TERMINAL_STATES",
        "WORKFLOW_STATE_TO_STATUS",
        "CommandContract",
        "Estimate",
        "InvalidTransition",
        "ParentDecision",
        "Priority",
        "Resolution",
        "Transition",
        "TransitionRecord",
        "WorkflowState",
        "allowed_targets",
        "audit_comment",
        "check_transition",
        "child_skip_reason",
        "get_command",
        "is_allowed",
        "is_earlier_state",
        "normalize_command",
        "parent_decision",
        "parse_all_transitions",
        "parse_audit_comments",
        "parse_estimate",
        "parse_priority",
        "parse_state",
        "parse_transition_comments",
        "plan_release",
        "plan_transition",
        "resolve_state",
        "state_index",
        "transition_marker",
    ],
    "ralph.pipeline": [
        "MAX_BUILDERS",
        "REMAINING_PHASES",
        "BlockingIssue",
        "Convergence",
        "DependencyCycle",
        "Fetch",
        "FileOwnership",
        "GroupResult",
        "IssueNotFound",
        "IssueRelations",
        "IssueState",
        "Phase",
        "PipelinePosition",
        "Recommendation",
        "StreamPosition",
        "SuggestedRoster",
        "WorkStream",
        "WorkStreamResult",
        "detect_group",
        "detect_position",
        "detect_stream_positions",
        "detect_work_streams",
        "stream_id",
        "suggest_roster",
    ],
    "ralph.graph": [
        "MIN_GROUP_FOR_STREAMS",
        "ROLE_OF_KIND",
        "GraphError",
        "PipelinePlan",
        "ReviewMode",
        "Role",
        "TaskGraph",
        "TaskKind",
        "TaskSpec",
        "build_task_graph",
        "plan_pipeline",
        "split_into_streams",
    ],
    "ralph.cli": ["EXIT_USER_ERROR", "app", "main"],
    "ralph.artifacts": [
        "HEADERS",
        "SELF_HEALED",
        "ArtifactKind",
        "Discovery",
        "Links",
        "Verdict",
        "artifact_comment",
        "critique_path",
        "discover",
        "find_link",
        "parse_frontmatter",
        "parse_verdict",
        "plan_path",
        "research_path",
        "review_comment",
        "slugify",
        "validate_document",
    ],
    "ralph.dashboard": [
        "DAY_SECONDS",
        "Dashboard",
        "DashboardItem",
        "HealthConfig",
        "HealthWarning",
        "IssueSnapshot",
        "PhaseSnapshot",
        "Severity",
        "WarningType",
        "aggregate_by_phase",
        "build_dashboard",
        "detect_health_issues",
        "format_markdown",
    ],
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_public_names_are_pinned(module_name):
    module = importlib.import_module(module_name)
    assert sorted(module.__all__) == sorted(PUBLIC[module_name])
    for name in module.__all__:
        assert hasattr(module, name), f"{module_name}.{name} is listed but missing"


def _defined_in(defining_module, module_name):
    return defining_module == module_name or defining_module.startswith(f"{module_name}._")


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_every_public_ralph_class_or_function_in_a_module_is_listed(module_name):
    module = importlib.import_module(module_name)
    ours = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and _defined_in(getattr(value, "__module__", ""), module_name)
        and not isinstance(value, type(importlib))
    }
    assert ours <= set(module.__all__)


def test_every_error_derives_from_the_one_root_and_is_drawn_in_the_tree():
    errors = importlib.import_module("ralph.errors")
    tree = errors.__doc__
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.RalphError)
        assert name in tree, f"{name} is missing from the tree in ralph.errors' docstring"
