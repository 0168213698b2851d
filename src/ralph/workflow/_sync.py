"""What an issue's open or closed state on the tracker says its Workflow State should be,
when a person closed or reopened it outside Ralph (the original's sync-issue-state
Action): closed as completed -> Done, closed for any other reason -> Canceled,
reopened -> Backlog. Pure."""

from __future__ import annotations

from ralph.workflow._states import TERMINAL_STATES, WorkflowState

__all__ = ["SYNC_COMMAND", "synced_state"]

#: The command an audit comment of a sync names.
SYNC_COMMAND = "ralph_sync"


def synced_state(
    current: WorkflowState | None, *, is_open: bool, completed: bool, reopened: bool
) -> WorkflowState | None:
    """The state to move to, None when ``current`` agrees with the tracker already.

    An issue without a state is not on the board: nothing to sync. A closed issue that
    is Done or Canceled stays (Ralph's own triage closes issues as not planned in Done);
    an open one in Done or Canceled moves back only when it was reopened, so a move to
    Done whose close has not happened yet is not undone.
    """
    if current is None:
        return None
    if not is_open:
        if current in TERMINAL_STATES:
            return None
        return WorkflowState.DONE if completed else WorkflowState.CANCELED
    if reopened and current in TERMINAL_STATES:
        return WorkflowState.BACKLOG
    return None
