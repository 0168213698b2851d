"""Exit codes say who acts next: 2 the person (change the input or configuration), 1
nobody's input is wrong (the operation failed or a server did not answer)."""

from __future__ import annotations

import pytest

from ralph.cli._exits import EXIT_FAILED, EXIT_INPUT, exit_code
from ralph.cli._orchestrate import _exit_code
from ralph.errors import (
    ConfigError,
    GitHubAuthError,
    GitHubRateLimited,
    GitHubUnavailable,
    InvalidInput,
    IssueNotFound,
    LeaseLost,
    RalphError,
    StoreUnavailable,
    StoreUnreachable,
    UnknownState,
)
from ralph.orchestrate import Ending, SessionResult


@pytest.mark.parametrize(
    "error",
    [
        InvalidInput("bad"),
        ConfigError("no ralph.toml"),
        UnknownState("Nowhere", ["Backlog"]),
        IssueNotFound(7),
        GitHubAuthError("bad credentials"),
        StoreUnavailable("no Ralph store at x"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_mistake_in_the_input_or_configuration_exits_2(error: RalphError) -> None:
    assert exit_code(error) == EXIT_INPUT == 2


@pytest.mark.parametrize(
    "error",
    [
        StoreUnreachable("cannot connect"),
        GitHubUnavailable("502"),
        GitHubRateLimited("limited"),
        LeaseLost(1, 2, "reclaimed"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_failure_no_input_change_fixes_exits_1(error: RalphError) -> None:
    assert exit_code(error) == EXIT_FAILED == 1


@pytest.mark.parametrize(
    ("ending", "code"),
    [
        ("finished", 0),
        ("broken", EXIT_FAILED),
        ("out_of_budget", EXIT_FAILED),
        ("interrupted", 130),
        ("agent_unusable", EXIT_INPUT),
    ],
)
def test_a_session_without_a_report_exits_by_how_it_ended(ending, code):
    assert _exit_code(SessionResult(None, Ending(ending), "why"), None) == code
