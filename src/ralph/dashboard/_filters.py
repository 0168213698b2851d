"""What the original's list tools filter on (``list_issues``, ``list_project_items``):
filter profiles (``filter-profiles.ts``) and the filter itself, over plain values.
Pure: the caller reads the items and turns dates into epoch seconds first."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ralph.errors import InvalidInput
from ralph.workflow import WorkflowState

__all__ = [
    "FIELD_NAMES",
    "FILTER_PROFILES",
    "FilterFields",
    "ItemFilter",
    "expand_profile",
]

_S = WorkflowState

#: Profile -> the filters it stands for. ``builder-planned`` is Ready for Plan, what the
#: original's ralph-plan skill meant by it (its table said Plan in Review, a bug).
FILTER_PROFILES: Mapping[str, Mapping[str, str]] = {
    "analyst-triage": {"workflowState": _S.BACKLOG.value},
    "analyst-research": {"workflowState": _S.RESEARCH_NEEDED.value},
    "builder-active": {"workflowState": _S.IN_PROGRESS.value},
    "builder-planned": {"workflowState": _S.READY_FOR_PLAN.value},
    "validator-review": {"workflowState": _S.PLAN_IN_REVIEW.value},
    "integrator-merge": {"workflowState": _S.IN_REVIEW.value},
}

#: The fields ``has`` and ``no`` name.
FIELD_NAMES = ("workflowState", "estimate", "priority", "labels", "assignees")


def expand_profile(name: str) -> dict[str, str]:
    """The filters of profile ``name`` (a copy)."""
    found = FILTER_PROFILES.get(name)
    if found is None:
        raise InvalidInput(
            f'Unknown filter profile "{name}". Valid profiles: {", ".join(FILTER_PROFILES)}. '
            "Recovery: use one of them, or leave profile out"
        )
    return dict(found)


@dataclass(frozen=True, kw_only=True)
class FilterFields:
    """An item as the filter sees it. Times are epoch seconds (None: not known)."""

    workflow_state: str | None = None
    estimate: str | None = None
    priority: str | None = None
    labels: tuple[str, ...] = ()
    assignees: tuple[str, ...] = ()
    updated_at: float | None = None
    title: str = ""
    body: str = ""

    def has(self, field: str) -> bool:
        value = {
            "workflowState": self.workflow_state,
            "estimate": self.estimate,
            "priority": self.priority,
            "labels": self.labels,
            "assignees": self.assignees,
        }[field]
        return bool(value)


@dataclass(frozen=True, kw_only=True)
class ItemFilter:
    """Every filter is ANDed; an empty one lets everything through. Single values
    match exactly; ``labels`` all must be there, ``exclude_labels`` none; an item
    without a value is never excluded by an ``exclude_*`` list of that field."""

    workflow_states: Collection[str] = ()
    estimates: Collection[str] = ()
    priorities: Collection[str] = ()
    labels: Collection[str] = ()
    has: Collection[str] = ()
    no: Collection[str] = ()
    exclude_workflow_states: Collection[str] = ()
    exclude_estimates: Collection[str] = ()
    exclude_priorities: Collection[str] = ()
    exclude_labels: Collection[str] = ()
    text: str = ""
    updated_since: float | None = None
    updated_before: float | None = None

    def __post_init__(self) -> None:
        for name in (*self.has, *self.no):
            if name not in FIELD_NAMES:
                raise InvalidInput(
                    f'"{name}" is not a field has/no can name; use {", ".join(FIELD_NAMES)}'
                )

    def matches(self, item: FilterFields) -> bool:
        checks = (
            not self.workflow_states or item.workflow_state in self.workflow_states,
            not self.estimates or item.estimate in self.estimates,
            not self.priorities or item.priority in self.priorities,
            all(label in item.labels for label in self.labels),
            all(item.has(name) for name in self.has),
            not any(item.has(name) for name in self.no),
            (item.workflow_state or "") not in self.exclude_workflow_states,
            (item.estimate or "") not in self.exclude_estimates,
            (item.priority or "") not in self.exclude_priorities,
            not set(item.labels) & set(self.exclude_labels),
            self._text_matches(item),
            self._time_matches(item.updated_at),
        )
        return all(checks)

    def _text_matches(self, item: FilterFields) -> bool:
        if not self.text:
            return True
        needle = self.text.casefold()
        return needle in item.title.casefold() or needle in item.body.casefold()

    def _time_matches(self, updated_at: float | None) -> bool:
        if self.updated_since is None and self.updated_before is None:
            return True
        if updated_at is None:  # the original dropped items without a time
            return False
        if self.updated_since is not None and updated_at < self.updated_since:
            return False
        return self.updated_before is None or updated_at < self.updated_before
