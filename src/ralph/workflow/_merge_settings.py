"""What ralph.toml says of merging: when (``merge_policy``) and by which methods. Apart
from the policy's decisions (``_merge_policy``), which only a merge needs: every command
reads the settings."""

from __future__ import annotations

import enum

__all__ = ["MERGE_METHODS", "MergePolicy"]

#: The methods a repository may allow, in the order Ralph prefers them.
MERGE_METHODS = ("merge", "squash", "rebase")


class MergePolicy(enum.StrEnum):
    """When Ralph merges a pull request (``merge_policy`` in ralph.toml)."""

    #: Required checks pass.
    CHECKS = "checks"
    #: Required checks pass, a review approves and no change request is outstanding.
    APPROVAL = "approval"
    #: Never: a person merges, and Ralph finishes the pipeline once they have.
    MANUAL = "manual"
