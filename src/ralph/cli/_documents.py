"""Reading the JSON documents the ``ralph pipeline`` commands take.

Every problem becomes an InvalidInput naming the file and what is wrong with it; the
CLI prints that one line and exits 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ralph._json import int_field, object_field, optional_str, str_list_field
from ralph.errors import InvalidInput
from ralph.workflow import Estimate, WorkflowState

if TYPE_CHECKING:
    from ralph.pipeline import FileOwnership, GroupResult, IssueRelations, IssueState, WorkStream

__all__ = [
    "BoardSnapshot",
    "PositionInput",
    "load_board",
    "load_ownership",
    "load_position_input",
    "read_json",
]

T = TypeVar("T")

#: Values the original used for "no workflow state yet"; they send an issue to triage.
_NO_STATE = frozenset({"", "unknown"})
_STATES = frozenset(s.value for s in WorkflowState)
_ESTIMATES = frozenset(e.value for e in Estimate)


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: is a directory, expected a JSON file") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None


def _in_file(path: Path, error: InvalidInput, where: str = "") -> InvalidInput:
    return InvalidInput(f"{path}: {where}{error}")


def _issue_list(document: Any, what: str) -> Sequence[Any]:
    """Accepts ``{"issues": [...]}`` or a bare list."""
    issues = document.get("issues") if isinstance(document, Mapping) else document
    if issues is None:
        raise InvalidInput('missing field "issues"')
    if not isinstance(issues, list):
        raise InvalidInput(f'"issues" must be a list of {what}')
    return issues


def _checked_issue_state(data: Any) -> IssueState:
    from ralph.pipeline import IssueState

    issue = IssueState.from_dict(data)
    state, estimate = issue.workflow_state, issue.estimate
    if state is not None and state not in _NO_STATE and state not in _STATES:
        valid = ", ".join(s.value for s in WorkflowState)
        raise InvalidInput(f"unknown workflow state {state!r} (valid: {valid}, or null)")
    if estimate is not None and estimate not in _ESTIMATES:
        valid = ", ".join(e.value for e in Estimate)
        raise InvalidInput(f"unknown estimate {estimate!r} (valid: {valid}, or null)")
    return issue


def _each(path: Path, items: Sequence[Any], parse: Callable[[Any], T]) -> list[T]:
    parsed: list[T] = []
    for index, item in enumerate(items):
        try:
            parsed.append(parse(item))
        except InvalidInput as exc:
            label = f"issue #{item['number']}" if _has_number(item) else f"issues[{index}]"
            raise _in_file(path, exc, f"{label}: ") from None
    return parsed


def _has_number(item: Any) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("number"), int)


def _unique(path: Path, numbers: Sequence[int]) -> None:
    seen: set[int] = set()
    for number in numbers:
        if number in seen:
            raise InvalidInput(f"{path}: issue #{number} appears twice")
        seen.add(number)


@dataclass(frozen=True, kw_only=True)
class PositionInput:
    """``{"issues": [...], "isGroup": bool, "groupPrimary": int}`` plus, for graphs,
    optional ``reviewMode`` and ``streams``."""

    issues: tuple[IssueState, ...]
    is_group: bool
    group_primary: int | None
    review_mode: str | None
    streams: tuple[WorkStream, ...] | None

    @property
    def group(self) -> GroupResult:
        from ralph.pipeline import GroupResult

        numbers = tuple(i.number for i in self.issues)
        primary = (
            self.group_primary if self.group_primary is not None else (numbers[0] if numbers else 0)
        )
        return GroupResult(issues=numbers, primary=primary, is_group=self.is_group)


def load_position_input(path: Path) -> PositionInput:
    from ralph.pipeline import WorkStream

    document = read_json(path)
    try:
        issues = _issue_list(document, "issue objects")
        fields = document if isinstance(document, Mapping) else {}
        is_group = fields.get("isGroup", fields.get("is_group"))
        if is_group is not None and not isinstance(is_group, bool):
            raise InvalidInput(f'"isGroup" must be true or false, got {is_group!r}')
        primary = int_field(fields, "groupPrimary", "group_primary", required=False)
        review_mode = optional_str(fields, "reviewMode", "review_mode")
        raw_streams = fields.get("streams")
        if raw_streams is not None and not isinstance(raw_streams, list):
            raise InvalidInput('"streams" must be a list of {"issues": [...]} objects')
    except InvalidInput as exc:
        raise _in_file(path, exc) from None
    parsed = tuple(_each(path, issues, _checked_issue_state))
    _unique(path, [i.number for i in parsed])
    streams = None
    if raw_streams is not None:
        streams = tuple(_each(path, raw_streams, WorkStream.from_dict))
    return PositionInput(
        issues=parsed,
        is_group=is_group if is_group is not None else len(parsed) > 1,
        group_primary=primary if primary is not None else (parsed[0].number if parsed else None),
        review_mode=review_mode,
        streams=streams,
    )


def load_ownership(path: Path) -> list[FileOwnership]:
    from ralph.pipeline import FileOwnership

    document = read_json(path)
    try:
        items = _issue_list(document, "{number, files, blockedBy} objects")
    except InvalidInput as exc:
        raise _in_file(path, exc) from None
    parsed = _each(path, items, FileOwnership.from_dict)
    _unique(path, [i.number for i in parsed])
    return parsed


@dataclass(frozen=True, kw_only=True)
class BoardSnapshot:
    """A snapshot of a board: each issue with its state, tree, dependencies and the
    files its research says it will modify."""

    seed: int
    review_mode: str | None
    relations: Mapping[int, IssueRelations]
    states: Mapping[int, IssueState]
    files: Mapping[int, tuple[str, ...]]


def _board_issue(data: Any) -> tuple[IssueRelations, IssueState, tuple[str, ...]]:
    from ralph.pipeline import IssueRelations, IssueState

    relations = IssueRelations.from_dict(data)
    state = _checked_issue_state(data)
    if not state.sub_issue_count and relations.sub_issues:
        state = IssueState(
            state.number,
            state.title,
            state.workflow_state,
            state.estimate,
            len(relations.sub_issues),
        )
    return relations, state, str_list_field(object_field(data, "an issue"), "files")


def load_board(path: Path) -> BoardSnapshot:
    document = read_json(path)
    try:
        fields = object_field(document, "the board")
        issues = _issue_list(fields, "issue objects")
        seed = int_field(fields, "seed")
        review_mode = optional_str(fields, "reviewMode", "review_mode")
    except InvalidInput as exc:
        raise _in_file(path, exc) from None
    assert seed is not None
    parsed = _each(path, issues, _board_issue)
    _unique(path, [relations.number for relations, _, _ in parsed])
    return BoardSnapshot(
        seed=seed,
        review_mode=review_mode,
        relations={r.number: r for r, _, _ in parsed},
        states={s.number: s for _, s, _ in parsed},
        files={r.number: f for r, _, f in parsed},
    )
