"""Ralph: issues move through triage, split, research, plan, review, implementation, pull
request and merge; coding agents do the work of each phase, deterministic code does the
orchestration.

Public modules: :mod:`ralph.workflow` (the state machine), :mod:`ralph.pipeline` (group,
position, streams), :mod:`ralph.graph` (the upfront task graph), :mod:`ralph.errors`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ralph.errors import RalphError
from ralph.graph import ReviewMode, TaskGraph, TaskSpec, build_task_graph
from ralph.pipeline import (
    IssueState,
    PipelinePosition,
    detect_group,
    detect_position,
    detect_work_streams,
)
from ralph.workflow import Estimate, Priority, WorkflowState

try:
    __version__ = version("ralph")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "Estimate",
    "IssueState",
    "PipelinePosition",
    "Priority",
    "RalphError",
    "ReviewMode",
    "TaskGraph",
    "TaskSpec",
    "WorkflowState",
    "__version__",
    "build_task_graph",
    "detect_group",
    "detect_position",
    "detect_work_streams",
]
