"""The merge-request endpoints the fake allows beyond GitLab's published document (owned
by the merge-request side; the rest are in ``_missing``). Same form as
``_missing.MISSING_PATHS``."""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING_MERGE_REQUEST_PATHS"]

MISSING_MERGE_REQUEST_PATHS: dict[str, dict[str, Any]] = {}
