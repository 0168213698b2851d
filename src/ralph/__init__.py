"""Ralph: issues move through triage, split, research, plan, review, implementation, pull
request and merge; coding agents do the work of each phase, deterministic code does the
orchestration.

The public API is this module and the library modules :mod:`ralph.workflow` (the state
machine), :mod:`ralph.pipeline` (group, position, streams), :mod:`ralph.graph` (the
upfront task graph), :mod:`ralph.errors` (every error Ralph raises on purpose),
:mod:`ralph.tasks` (the task store), :mod:`ralph.tracker` (issue trackers) and
:mod:`ralph.db` (the database both are made on); their ``__all__`` is pinned by a test.
The other packages (``cli``, ``orchestrate``, ``phases``, ``mcp``, ``hooks``, ``plugin``,
``demo``, ``config``, ``project``, ``runtimes``, ``github``, ``git``, ``sandbox``,
``artifacts``, ``dashboard``) are the application: they keep an ``__all__`` for the rest
of Ralph, but are internal and may change in any release.

The names below are imported on first use, so that ``ralph hook`` (which Claude Code runs
on every tool call) starts without loading them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

    __version__: str

#: Public name -> the module it comes from.
_EXPORTS = {
    "RalphError": "ralph.errors",
    **dict.fromkeys(["ReviewMode", "TaskGraph", "TaskSpec", "build_task_graph"], "ralph.graph"),
    **dict.fromkeys(
        [
            "IssueState",
            "PipelinePosition",
            "detect_group",
            "detect_position",
            "detect_work_streams",
        ],
        "ralph.pipeline",
    ),
    **dict.fromkeys(["Estimate", "Priority", "WorkflowState"], "ralph.workflow"),
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from ralph._distribution import installed_version

        value: Any = installed_version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'ralph' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
