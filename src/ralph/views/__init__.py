"""What a person looks at, as plain data: the board, an issue with its history and
documents, a pull request with its checks and reviews, the runs and their reports, what
was spent. The CLI's ``--json`` prints these
documents and ``ralph web`` shows and serves the same ones, so both say the same thing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.views._board import BoardView, board_health, load_board
    from ralph.views._caps import CapLine, CapsView, hold_document, load_caps
    from ralph.views._issues import (
        IssueView,
        Refusal,
        artifacts_of,
        history_of,
        issue_dict,
        load_issue,
        refusals_of,
    )
    from ralph.views._provider_waits import ProviderWaitView, load_provider_waits
    from ralph.views._pulls import pull_request_dict
    from ralph.views._runs import run_document, runs_document, task_document
    from ralph.views._spend import SpendLine, SpendView, load_spend
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "BoardView",
    "CapLine",
    "CapsView",
    "IssueView",
    "ProviderWaitView",
    "Refusal",
    "SpendLine",
    "SpendView",
    "artifacts_of",
    "board_health",
    "history_of",
    "hold_document",
    "issue_dict",
    "load_board",
    "load_caps",
    "load_issue",
    "load_provider_waits",
    "load_spend",
    "pull_request_dict",
    "refusals_of",
    "run_document",
    "runs_document",
    "task_document",
]
