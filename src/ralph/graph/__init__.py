"""The upfront task graph: every task from the current pipeline position to the merge,
as plain data (task specs with dependency keys). Pure: no I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.errors import GraphError
    from ralph.graph._build import build_task_graph
    from ralph.graph._chain import ReviewMode, scope_task
    from ralph.graph._model import ROLE_OF_KIND, TYPICAL_EFFORT, Role, TaskGraph, TaskKind, TaskSpec
    from ralph.graph._plan import MIN_GROUP_FOR_STREAMS, PipelinePlan, plan_pipeline
    from ralph.graph._streams import split_into_streams
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "MIN_GROUP_FOR_STREAMS",
    "ROLE_OF_KIND",
    "TYPICAL_EFFORT",
    "GraphError",
    "PipelinePlan",
    "ReviewMode",
    "Role",
    "TaskGraph",
    "TaskKind",
    "TaskSpec",
    "build_task_graph",
    "plan_pipeline",
    "scope_task",
    "split_into_streams",
]
