"""The demo project: a sample repository and epic for ``ralph demo``, the tests and the
benchmarks, and the demo run itself."""

from __future__ import annotations

from ralph.demo._demo import (
    DEMO_TEAM,
    DemoCheck,
    check_demo,
    create_demo_project,
    demo_project,
    run_demo,
    unconfined_reason,
)
from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, SAMPLE_FILES, create_sample_repository

__all__ = [
    "DEMO_TEAM",
    "EPIC_BODY",
    "EPIC_TITLE",
    "SAMPLE_FILES",
    "DemoCheck",
    "check_demo",
    "create_demo_project",
    "create_sample_repository",
    "demo_project",
    "run_demo",
    "unconfined_reason",
]
