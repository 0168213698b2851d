"""Exit codes, decided in one place: 2 when the person must change their input or
configuration, 1 when the operation failed or something it needs is unavailable (trying
again later may work), 130 when a run was interrupted."""

from __future__ import annotations

from ralph.errors import (
    IssueLocked,
    LeaseLost,
    MergeConflict,
    RalphError,
    ServiceRateLimited,
    ServiceUnavailable,
    StateConflict,
    StoreUnreachable,
)

__all__ = ["EXIT_FAILED", "EXIT_INPUT", "EXIT_INTERRUPTED", "exit_code"]

#: The operation failed: a phase escalated, a check failed, a server did not answer.
EXIT_FAILED = 1
#: The input or configuration must change (click uses 2 for usage errors too).
EXIT_INPUT = 2
#: A run (hero, team, worker) stopped by Ctrl-C.
EXIT_INTERRUPTED = 130

#: Errors no change of input fixes: the same command may work later. A git error stays a
#: 2: it is nearly always the state of the person's repository, which they must change.
_FAILURES: tuple[type[RalphError], ...] = (
    StoreUnreachable,
    ServiceUnavailable,
    ServiceRateLimited,
    StateConflict,
    MergeConflict,
    IssueLocked,
    LeaseLost,
)


def exit_code(error: RalphError) -> int:
    """The exit code a command ending with ``error`` returns."""
    return EXIT_FAILED if isinstance(error, _FAILURES) else EXIT_INPUT
