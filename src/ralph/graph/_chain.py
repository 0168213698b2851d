"""Task factories: per-issue tasks and the plan .. merge chain of one scope.

A scope is what one plan covers: a single issue, a group, or a work stream of a group.
Subjects keep the original's patterns (``Research GH-42``, ``Plan group GH-42``,
``Review plan for GH-42``, ``Implement GH-42``, ``Create PR for GH-42``,
``Merge PR for GH-42``) because people read them; code matches on kind and role. Ralph's
own ``Review PR for GH-42`` and ``Address PR feedback for GH-42`` read the same way.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph.graph._model import ROLE_OF_KIND, TaskKind, TaskSpec
from ralph.workflow import TASK_SPECS, PhaseSpec

__all__ = [
    "CHAIN_KINDS",
    "PRE_PLAN_KINDS",
    "ReviewMode",
    "Scope",
    "Stages",
    "chain",
    "issue_task",
    "scope_task",
]


class ReviewMode(enum.StrEnum):
    """How a plan is approved: by a validator agent, by a person, or not at all."""

    AUTO = "auto"
    INTERACTIVE = "interactive"
    SKIP = "skip"

    @property
    def review_kind(self) -> TaskKind | None:
        return {
            ReviewMode.AUTO: TaskKind.REVIEW,
            ReviewMode.INTERACTIVE: TaskKind.HUMAN_GATE,
            ReviewMode.SKIP: None,
        }[self]


#: Tasks done per issue before the (shared) plan, in the order an issue meets them.
PRE_PLAN_KINDS = (TaskKind.SPLIT, TaskKind.TRIAGE, TaskKind.RESEARCH)
#: Tasks of the plan .. merge chain of a scope: every other kind.
CHAIN_KINDS = tuple(kind for kind in TaskKind if kind not in PRE_PLAN_KINDS)

_SPEC_OF_KIND: Mapping[TaskKind, PhaseSpec] = {TaskKind(s.kind): s for s in TASK_SPECS}


def _spec(
    kind: TaskKind,
    key: str,
    issues: Sequence[int],
    about: str,
    deps: Sequence[str],
    metadata: Mapping[str, Any],
) -> TaskSpec:
    phase = _SPEC_OF_KIND[kind]
    return TaskSpec(
        key=key,
        kind=kind,
        role=ROLE_OF_KIND[kind],
        issues=tuple(issues),
        subject=phase.title.format(about),
        active_form=phase.doing.format(about),
        deps=tuple(deps),
        metadata={"issue_number": issues[0], "command": phase.command_name, **metadata},
    )


def issue_task(
    kind: TaskKind, number: int, deps: Sequence[str] = (), estimate: str | None = None
) -> TaskSpec:
    """A per-issue task (triage, split, research) keyed ``<kind>:<number>``."""
    metadata = {"estimate": estimate} if estimate else {}
    return _spec(kind, f"{kind.value}:{number}", [number], f"GH-{number}", deps, metadata)


@dataclass(frozen=True, kw_only=True)
class Scope:
    """What one plan covers.

    ``key`` goes into task keys (``42`` or ``stream-42-44``); ``label`` names the plan
    (``GH-42``, ``group GH-42``, ``stream-42-44``); ``target`` names what is reviewed and
    merged (``GH-42``, ``stream-42-44``). ``issues`` are in implementation order;
    ``waits_for`` are the issues whose research (or split) the plan waits for.
    """

    key: str
    label: str
    target: str
    issues: tuple[int, ...]
    waits_for: tuple[int, ...]
    #: True when implement keys need the scope to stay unique (streams).
    qualify_implement_keys: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: Each issue's estimate: a task carries its first issue's (the issue its agent's
    #: charges go to), so a phase's cost history is by estimate.
    estimates: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Stages:
    """Which parts of the chain are still ahead."""

    plan: bool
    review: TaskKind | None
    implement: Collection[int]
    pr: bool
    merge: bool
    #: A validator reviews the pull request's code before the merge (``review_code``).
    code_review: bool = False


def chain(scope: Scope, stages: Stages, frontier: Mapping[int, str]) -> list[TaskSpec]:
    """plan -> review | human gate -> implement each issue in order -> PR -> code review
    (when asked for) -> merge, each waiting for the one before. ``frontier`` maps an
    issue to its last pre-plan task."""
    tasks: list[TaskSpec] = []
    last: tuple[str, ...] = ()

    def add(kind: TaskKind, key: str, issues: Sequence[int], about: str) -> None:
        nonlocal last
        estimate = scope.estimates.get(issues[0])
        metadata = {**scope.metadata, "estimate": estimate} if estimate else scope.metadata
        tasks.append(_spec(kind, key, issues, about, last, metadata))
        last = (key,)

    if stages.plan:
        last = tuple(frontier[n] for n in scope.waits_for if n in frontier)
        add(TaskKind.PLAN, f"plan:{scope.key}", scope.issues, scope.label)
    if stages.review is not None:
        add(stages.review, f"{stages.review.value}:{scope.key}", scope.issues, scope.target)
    for number in scope.issues:
        if number in stages.implement:
            key = (
                f"implement:{scope.key}:{number}"
                if scope.qualify_implement_keys
                else (f"implement:{number}")
            )
            add(TaskKind.IMPLEMENT, key, [number], f"GH-{number}")
    if stages.pr:
        add(TaskKind.PR, f"pr:{scope.key}", scope.issues, scope.target)
    if stages.code_review and stages.merge:
        add(TaskKind.CODE_REVIEW, f"code_review:{scope.key}", scope.issues, scope.target)
    if stages.merge:
        add(TaskKind.MERGE, f"merge:{scope.key}", scope.issues, scope.target)
    return tasks


def scope_task(
    kind: TaskKind,
    key: str,
    issues: Sequence[int],
    about: str,
    deps: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
) -> TaskSpec:
    """One task of a scope's chain, as ``chain`` makes them: for a rewrite that adds one
    later (an address round after a review asked for changes)."""
    return _spec(kind, key, issues, about, deps, metadata or {})
