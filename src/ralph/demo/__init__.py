"""The demo project: a sample repository and epic for ``ralph demo``, the tests and the
benchmarks."""

from __future__ import annotations

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, SAMPLE_FILES, create_sample_repository

__all__ = ["EPIC_BODY", "EPIC_TITLE", "SAMPLE_FILES", "create_sample_repository"]
