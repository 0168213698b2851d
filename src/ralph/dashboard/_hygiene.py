"""The project hygiene report (the original's ``project_hygiene``, docs/compatibility.md HY
cases): what to archive, what is stale or orphaned, missing fields, WIP limits exceeded
and likely duplicates by title. Pure: the caller supplies the issues and the time.

Ages are compared unrounded and shown to a tenth of a day, as the original did.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ralph.dashboard._build import DAY_SECONDS, DashboardItem
from ralph.dashboard._inline import inline
from ralph.errors import InvalidInput
from ralph.workflow import TERMINAL_STATES, WorkflowState

__all__ = [
    "DuplicateCandidate",
    "HygieneConfig",
    "HygieneItem",
    "HygieneReport",
    "WipViolation",
    "build_hygiene_report",
    "format_hygiene_markdown",
    "normalize_title",
    "title_similarity",
]

#: Verbs a title often starts with; the first one found is dropped before comparing.
_COMMON_PREFIXES = ("add", "create", "fix", "update", "remove", "implement", "refactor")
#: GitHub's limit on a title: a longer one (stored before Ralph held titles to it) is
#: compared by its first characters.
_COMPARED = 256
_PUNCTUATION = str.maketrans("", "", "`'\"():,")


#: The most days a threshold may name: ten years.
MAX_DAYS = 3650


def _check_days(name: str, value: float) -> None:
    if not math.isfinite(value) or value < 0:
        raise InvalidInput(f"{name} {value} is not a number of days; give 0 or more (e.g. 14)")
    if value > MAX_DAYS:
        raise InvalidInput(f"{name} {value:g} is too large; at most {MAX_DAYS} days")


@dataclass(frozen=True, kw_only=True)
class HygieneConfig:
    """The original's thresholds; a negative or non-finite number of days, or a
    similarity outside 0..1, is refused (InvalidInput)."""

    archive_days: float = 14.0
    stale_days: float = 7.0
    orphan_days: float = 14.0
    wip_limits: Mapping[str, int] = field(default_factory=dict)
    similarity_threshold: float = 0.8

    def __post_init__(self) -> None:
        _check_days("--archive-days", self.archive_days)
        _check_days("--stale-days", self.stale_days)
        _check_days("--orphan-days", self.orphan_days)
        threshold = self.similarity_threshold
        if not math.isfinite(threshold) or not 0 <= threshold <= 1:
            raise InvalidInput(
                f"--similarity {threshold} is outside 0..1; give a fraction such as 0.8"
            )


@dataclass(frozen=True)
class HygieneItem:
    number: int
    title: str
    workflow_state: str | None
    #: Days since the last update, to a tenth of a day.
    age_days: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "workflowState": self.workflow_state,
            "ageDays": self.age_days,
        }


@dataclass(frozen=True)
class DuplicateCandidate:
    first: HygieneItem
    second: HygieneItem
    #: 0..1, to two decimals.
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": [self.first.to_dict(), self.second.to_dict()],
            "similarity": self.similarity,
        }


@dataclass(frozen=True)
class WipViolation:
    state: str
    count: int
    limit: int
    items: tuple[HygieneItem, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "count": self.count,
            "limit": self.limit,
            "items": [i.to_dict() for i in self.items],
        }


@dataclass(frozen=True, kw_only=True)
class HygieneReport:
    generated_at: float
    total_items: int
    archive_candidates: tuple[HygieneItem, ...]
    stale_items: tuple[HygieneItem, ...]
    orphaned_items: tuple[HygieneItem, ...]
    missing_estimate: tuple[HygieneItem, ...]
    missing_priority: tuple[HygieneItem, ...]
    wip_violations: tuple[WipViolation, ...]
    duplicate_candidates: tuple[DuplicateCandidate, ...]
    #: Open-work items with both an estimate and a priority, in percent.
    field_coverage_percent: int

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape (camelCase)."""
        return {
            "generatedAt": _iso(self.generated_at),
            "totalItems": self.total_items,
            "archiveCandidates": [i.to_dict() for i in self.archive_candidates],
            "staleItems": [i.to_dict() for i in self.stale_items],
            "orphanedItems": [i.to_dict() for i in self.orphaned_items],
            "fieldGaps": {
                "missingEstimate": [i.to_dict() for i in self.missing_estimate],
                "missingPriority": [i.to_dict() for i in self.missing_priority],
            },
            "wipViolations": [v.to_dict() for v in self.wip_violations],
            "duplicateCandidates": [d.to_dict() for d in self.duplicate_candidates],
            "summary": {
                "archiveCandidateCount": len(self.archive_candidates),
                "staleCount": len(self.stale_items),
                "orphanCount": len(self.orphaned_items),
                "fieldCoveragePercent": self.field_coverage_percent,
                "wipViolationCount": len(self.wip_violations),
                "duplicateCandidateCount": len(self.duplicate_candidates),
            },
        }


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _age_days(at: float, now: float) -> float:
    return max(0.0, (now - at) / DAY_SECONDS)


def _round_half_up(value: float, digits: int) -> float:
    """JavaScript's ``Math.round(x * 10**d) / 10**d`` (halves go up), not banker's."""
    scale: float = 10.0**digits
    return math.floor(value * scale + 0.5) / scale


def _item(item: DashboardItem, now: float) -> HygieneItem:
    age = _round_half_up(_age_days(item.updated_at, now), 1)
    return HygieneItem(item.number, item.title, item.workflow_state, age)


def _open_work(item: DashboardItem) -> bool:
    """Not Done or Canceled (an issue without a state counts as open work)."""
    return item.workflow_state not in TERMINAL_STATES


def normalize_title(title: str) -> str:
    """Lower case, the first common verb (``add``, ``fix``...) and a space dropped from
    the front, quotes, backticks, parentheses, colons and commas removed, trimmed; of
    a title longer than GitHub takes, its start (comparing two is quadratic in length)."""
    normalized = title[:_COMPARED].lower()
    for prefix in _COMMON_PREFIXES:
        if normalized.startswith(prefix + " "):
            normalized = normalized[len(prefix) + 1 :]
            break
    return normalized.translate(_PUNCTUATION).strip()


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost))
        previous = current
    return previous[-1]


def title_similarity(a: str, b: str) -> float:
    """1 - edit distance / longer length of the normalised titles (1 when both are empty)."""
    na, nb = normalize_title(a), normalize_title(b)
    longest = max(len(na), len(nb))
    if longest == 0:
        return 1.0
    return 1 - _levenshtein(na, nb) / longest


def _distance_within(a: str, b: str, limit: int) -> int | None:
    """The edit distance of ``a`` and ``b`` when it is at most ``limit``, else None.
    Only cells within ``limit`` of the diagonal can lie on such a path, and a row whose
    every cell is past the limit ends the search: most pairs of titles are nothing
    alike, and this keeps a board of hundreds of issues to a fraction of a second."""
    if abs(len(a) - len(b)) > limit:
        return None
    over = limit + 1
    previous = [j if j <= limit else over for j in range(len(b) + 1)]
    for i, char_a in enumerate(a, 1):
        low, high = max(1, i - limit), min(len(b), i + limit)
        current = [over] * (len(b) + 1)
        current[0] = i if i <= limit else over
        best = current[0]
        for j in range(low, high + 1):
            cost = 0 if char_a == b[j - 1] else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost, over)
            current[j] = value
            best = min(best, value)
        if best > limit:
            return None
        previous = current
    return previous[-1] if previous[-1] <= limit else None


def _duplicates(
    items: Sequence[DashboardItem], now: float, threshold: float
) -> list[DuplicateCandidate]:
    found = []
    normalized = [normalize_title(i.title) for i in items]
    letters = [Counter(title) for title in normalized]
    for i, a in enumerate(items):
        for j in range(i + 1, len(items)):
            na, nb = normalized[i], normalized[j]
            longest = max(len(na), len(nb))
            # Titles of very different lengths are not the same issue: skip the distance.
            if longest and abs(len(na) - len(nb)) / longest > 0.5:
                continue
            if longest == 0:
                similarity = 1.0
            else:
                # similarity >= threshold  <=>  distance <= (1 - threshold) * longest
                limit = math.floor((1 - threshold) * longest + 1e-9)
                # Every letter one title has more of than the other costs an edit at
                # least: a cheap bound that spares most pairs the distance itself.
                mine, theirs = letters[i], letters[j]
                shared = sum(min(n, theirs.get(c, 0)) for c, n in mine.items())
                if longest - shared > limit:
                    continue
                distance = _distance_within(na, nb, limit)
                if distance is None:
                    continue
                similarity = 1 - distance / longest
            if similarity >= threshold:
                found.append(
                    DuplicateCandidate(
                        _item(a, now), _item(items[j], now), _round_half_up(similarity, 2)
                    )
                )
    return found


def build_hygiene_report(
    items: Sequence[DashboardItem], *, now: float, config: HygieneConfig | None = None
) -> HygieneReport:
    """Every section of the report for ``items`` (the board's issues, archived ones left
    out by the caller) at ``now`` (epoch seconds)."""
    config = config or HygieneConfig()
    terminal = (WorkflowState.DONE, WorkflowState.CANCELED)
    archive = [
        _item(i, now)
        for i in items
        if i.workflow_state in terminal
        and _age_days(i.closed_at if i.closed_at is not None else i.updated_at, now)
        > config.archive_days
    ]
    open_work = [i for i in items if _open_work(i)]
    stale = [_item(i, now) for i in open_work if _age_days(i.updated_at, now) > config.stale_days]
    orphaned = [
        _item(i, now)
        for i in items
        if i.workflow_state == WorkflowState.BACKLOG
        and not i.assignees
        and _age_days(i.updated_at, now) > config.orphan_days
    ]
    violations = []
    for state, limit in config.wip_limits.items():
        in_state = [i for i in items if i.workflow_state == state]
        if len(in_state) > limit:
            violations.append(
                WipViolation(state, len(in_state), limit, tuple(_item(i, now) for i in in_state))
            )
    complete = [i for i in open_work if i.estimate is not None and i.priority is not None]
    coverage = math.floor(100 * len(complete) / len(open_work) + 0.5) if open_work else 100
    return HygieneReport(
        generated_at=now,
        total_items=len(items),
        archive_candidates=tuple(archive),
        stale_items=tuple(stale),
        orphaned_items=tuple(orphaned),
        missing_estimate=tuple(_item(i, now) for i in open_work if i.estimate is None),
        missing_priority=tuple(_item(i, now) for i in open_work if i.priority is None),
        wip_violations=tuple(violations),
        duplicate_candidates=tuple(_duplicates(open_work, now, config.similarity_threshold)),
        field_coverage_percent=coverage,
    )


_TABLE = ["| Issue | Title | State | Age |", "|-------|-------|-------|-----|"]


def _days(value: float) -> str:
    """20.0 -> ``20``, 20.5 -> ``20.5``, as JavaScript prints a number."""
    return f"{value:.1f}".removesuffix(".0")


def _rows(items: Sequence[HygieneItem]) -> list[str]:
    return [
        f"| #{i.number} | {inline(i.title)} | {i.workflow_state or '—'} | {_days(i.age_days)}d |"
        for i in items
    ]


def format_hygiene_markdown(report: HygieneReport) -> str:
    """The original's ``# Project Hygiene Report``: the summary, then each section that
    has something in it."""
    lines = [
        "# Project Hygiene Report",
        f"_Generated: {_iso(report.generated_at)}_",
        "",
        f"**Total items**: {report.total_items}",
        "",
        "## Summary",
        f"- Archive candidates: {len(report.archive_candidates)}",
        f"- Stale items: {len(report.stale_items)}",
        f"- Orphaned items: {len(report.orphaned_items)}",
        f"- Field coverage: {report.field_coverage_percent}%",
        f"- WIP violations: {len(report.wip_violations)}",
        f"- Duplicate candidates: {len(report.duplicate_candidates)}",
        "",
    ]
    for title, section in (
        ("Archive Candidates", report.archive_candidates),
        ("Stale Items", report.stale_items),
        ("Orphaned Items", report.orphaned_items),
    ):
        if section:
            lines += [f"## {title}", *_TABLE, *_rows(section), ""]
    if report.missing_estimate or report.missing_priority:
        lines.append("## Field Gaps")
        for title, section in (
            ("Missing Estimate", report.missing_estimate),
            ("Missing Priority", report.missing_priority),
        ):
            if section:
                lines += [f"### {title}", *_TABLE, *_rows(section), ""]
    if report.wip_violations:
        lines.append("## WIP Violations")
        for v in report.wip_violations:
            lines += [f"### {v.state}: {v.count} items (limit: {v.limit})", *_TABLE]
            lines += [*_rows(v.items), ""]
    if report.duplicate_candidates:
        lines += [
            "## Duplicate Candidates",
            "| Issue A | Title A | Issue B | Title B | Similarity |",
            "|---------|---------|---------|---------|------------|",
        ]
        lines += [
            f"| #{d.first.number} | {inline(d.first.title)} | #{d.second.number} | "
            f"{inline(d.second.title)} | {d.similarity:.2f} |"
            for d in report.duplicate_candidates
        ]
        lines.append("")
    return "\n".join(lines) + "\n"
