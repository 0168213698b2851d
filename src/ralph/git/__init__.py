"""Git, through the ``git`` command: repositories and merges that never touch a checkout
they do not have to."""

from __future__ import annotations

from ralph.git._repo import GitRepo, MergeOutcome, MergeRefused

__all__ = ["GitRepo", "MergeOutcome", "MergeRefused"]
