"""Git, through the ``git`` command: repositories, merges and commits that never touch a
checkout they do not have to, worktrees that are never deleted with work in them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.git._byproducts import (
        by_products_removed,
        new_files_noted,
        noted_files,
        noted_list,
    )
    from ralph.git._changes import changed_between, working_changes
    from ralph.git._commit import commit_files
    from ralph.git._confine import Breach, Confinement
    from ralph.git._diff import diff_hunk, hunk_containing
    from ralph.git._preflight import REACH_SECONDS, check_checkout, check_remote
    from ralph.git._rebase import rebase_merge
    from ralph.git._repo import CheckoutInTheWay, GitRepo, MergeOutcome, MergeRefused, RemoteRefused
    from ralph.git._worktrees import RUN_FILES_DIR, Pruned, Worktree, Worktrees
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "REACH_SECONDS",
    "RUN_FILES_DIR",
    "Breach",
    "CheckoutInTheWay",
    "Confinement",
    "GitRepo",
    "MergeOutcome",
    "MergeRefused",
    "Pruned",
    "RemoteRefused",
    "Worktree",
    "Worktrees",
    "by_products_removed",
    "changed_between",
    "check_checkout",
    "check_remote",
    "commit_files",
    "diff_hunk",
    "hunk_containing",
    "new_files_noted",
    "noted_files",
    "noted_list",
    "rebase_merge",
    "working_changes",
]
