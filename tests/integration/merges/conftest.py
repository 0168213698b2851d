"""The fake GitHub's fixtures, for the merge train on GitHub."""

from __future__ import annotations

from ..github.conftest import shop

__all__ = ["shop"]
