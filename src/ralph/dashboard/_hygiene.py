"""The project hygiene report (the original's ``project_hygiene``, docs/compatibility.md HY
cases): what to archive, what is stale or orphaned, missing fields, WIP limits exceeded
and likely duplicates by title. Pure: the caller supplies the issues and the time.

Ages are compared unrounded and shown to a tenth of a day, as the original did.
"""

from __future__ import annotations

import math
import re
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
    "MAX_DUPLICATES",
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
#: The most duplicate candidates a report lists (the most alike; the rest are counted):
#: a board of near-identical titles has pairs by the million.
MAX_DUPLICATES = 100
#: A number in a title: titles whose numbers differ name different things ("Issue 4 of
#: the board", "Support Python 3.13"), however few letters apart.
_NUMBER = re.compile(r"\d+")
#: Up to this many titles (of the same numbers), every pair the definition finds is
#: found. Beyond, two titles are compared only when they share a word, or a pair of
#: words, few others have (``_RARE``): on a board of thousands, titles made only of the
#: board's common words are too many to compare and say little alike.
EXACT_UP_TO = 1_000
#: A word in at most this share of the titles is rare.
_RARE = 0.01
_WORD = re.compile(r"\w+")


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
    #: Duplicate candidates found beyond the ``MAX_DUPLICATES`` listed.
    duplicates_left_out: int = 0

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
                "duplicateCandidateCount": len(self.duplicate_candidates)
                + self.duplicates_left_out,
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


#: The length of the pieces titles are blocked by (pairs of letters).
_Q = 2


def _needed_grams(length: int, threshold: float) -> int:
    """The fewest letter pairs a title of ``length`` shares with any title alike enough
    to be a candidate (at most twice as long: longer ones are never compared). Each
    edit breaks at most ``_Q`` of them (Ukkonen's count filter); 0 or less: no bound,
    the title is compared with every other."""
    return min(
        longest - _Q + 1 - _Q * math.floor((1 - threshold) * longest + 1e-9)
        for longest in range(max(length, 1), 2 * max(length, 1) + 1)
    )


def _candidate_pairs(titles: Sequence[str], threshold: float) -> set[tuple[int, int]]:
    """Pairs of ``titles`` (by index) that may be alike enough: every pair the edit
    distance would find, without looking at most others. Two titles within the distance
    share at least ``_needed_grams`` letter pairs, so (prefix filtering) each title's
    rarest ``n - needed + 1`` pairs meet the other's: only titles that share a rare
    pair of letters are compared. A pair repeated in a title counts as a new one each
    time (its first, second... occurrence), so shared counts are a multiset's."""
    grams: list[list[tuple[str, int]]] = []
    for title in titles:
        seen: Counter[str] = Counter()
        tagged = []
        for at in range(len(title) - _Q + 1):
            piece = title[at : at + _Q]
            tagged.append((piece, seen[piece]))
            seen[piece] += 1
        grams.append(tagged)
    frequency = Counter(gram for tagged in grams for gram in tagged)
    index: dict[tuple[str, int], list[int]] = {}
    unbounded: list[int] = []
    pairs: set[tuple[int, int]] = set()
    for j, tagged in enumerate(grams):
        needed = _needed_grams(len(titles[j]), threshold)
        if needed <= 0:
            pairs.update((i, j) for i in range(j))
            unbounded.append(j)
            continue
        pairs.update((i, j) for i in unbounded)
        tagged.sort(key=lambda each: (frequency[each], each))
        for each in tagged[: len(tagged) - needed + 1]:
            found = index.setdefault(each, [])
            pairs.update((i, j) for i in found)
            found.append(j)
    return pairs


def _sharing_a_rare_word(titles: Sequence[str]) -> set[tuple[int, int]]:
    """Pairs of ``titles`` (by index) that share a word, or two words, at most ``_RARE``
    of them have: a title one letter apart from another keeps all its words but one,
    and two common words together are rarely common."""
    holders: dict[str | tuple[str, str], list[int]] = {}
    for index, title in enumerate(titles):
        words = sorted(set(_WORD.findall(title)))
        keys: list[str | tuple[str, str]] = [*words]
        keys += [(a, b) for at, a in enumerate(words) for b in words[at + 1 :]]
        for key in keys:
            holders.setdefault(key, []).append(index)
    most = max(2, math.floor(_RARE * len(titles)))
    pairs: set[tuple[int, int]] = set()
    for having in holders.values():
        if len(having) <= most:
            pairs.update(
                (having[x], having[y])
                for x in range(len(having))
                for y in range(x + 1, len(having))
            )
    return pairs


def _duplicates(
    items: Sequence[DashboardItem], now: float, threshold: float
) -> tuple[list[DuplicateCandidate], int]:
    """The pairs of ``items`` whose titles are at least ``threshold`` alike, at most
    ``MAX_DUPLICATES`` of them (the most alike, in board order), and how many more.
    Titles are compared only with others of the same numbers that share rare letter
    pairs (``_candidate_pairs``), or on a large board rare words: 10,000 issues take
    seconds, not hours."""
    normalized = [normalize_title(i.title) for i in items]
    letters = [Counter(title) for title in normalized]
    by_numbers: dict[tuple[str, ...], list[int]] = {}
    for index, title in enumerate(normalized):
        by_numbers.setdefault(tuple(_NUMBER.findall(title)), []).append(index)
    found: list[tuple[float, int, int]] = []
    for members in by_numbers.values():
        if len(members) < 2:
            continue
        titles = [normalized[m] for m in members]
        candidates = (
            _candidate_pairs(titles, threshold)
            if len(members) <= EXACT_UP_TO
            else _sharing_a_rare_word(titles)
        )
        for x, y in candidates:
            i, j = members[x], members[y]
            similarity = _similarity(
                normalized[i], normalized[j], letters[i], letters[j], threshold
            )
            if similarity is not None:
                found.append((similarity, i, j))
    kept = sorted(found, key=lambda f: (-f[0], f[1], f[2]))[:MAX_DUPLICATES]
    kept.sort(key=lambda f: (f[1], f[2]))
    return [
        DuplicateCandidate(_item(items[i], now), _item(items[j], now), _round_half_up(s, 2))
        for s, i, j in kept
    ], len(found) - len(kept)


def _similarity(
    na: str, nb: str, mine: Counter[str], theirs: Counter[str], threshold: float
) -> float | None:
    """How alike two normalised titles are, when at least ``threshold``; else None."""
    longest = max(len(na), len(nb))
    if longest == 0:
        return 1.0
    # Titles of very different lengths are not the same issue: skip the distance.
    if abs(len(na) - len(nb)) / longest > 0.5:
        return None
    # similarity >= threshold  <=>  distance <= (1 - threshold) * longest
    limit = math.floor((1 - threshold) * longest + 1e-9)
    # Every letter one title has more of than the other costs an edit at least: a
    # cheap bound that spares most pairs the distance itself.
    shared = sum(min(n, theirs.get(c, 0)) for c, n in mine.items())
    if longest - shared > limit:
        return None
    distance = _distance_within(na, nb, limit)
    if distance is None:
        return None
    similarity = 1 - distance / longest
    return similarity if similarity >= threshold else None


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
    duplicates, left_out = _duplicates(open_work, now, config.similarity_threshold)
    return HygieneReport(
        generated_at=now,
        total_items=len(items),
        archive_candidates=tuple(archive),
        stale_items=tuple(stale),
        orphaned_items=tuple(orphaned),
        missing_estimate=tuple(_item(i, now) for i in open_work if i.estimate is None),
        missing_priority=tuple(_item(i, now) for i in open_work if i.priority is None),
        wip_violations=tuple(violations),
        duplicate_candidates=tuple(duplicates),
        field_coverage_percent=coverage,
        duplicates_left_out=left_out,
    )


_TABLE = ["| Issue | Title | State | Age |", "|-------|-------|-------|-----|"]


def _duplicate_count(report: HygieneReport) -> str:
    shown = len(report.duplicate_candidates)
    if not report.duplicates_left_out:
        return str(shown)
    return f"{shown + report.duplicates_left_out} (the {shown} most alike below)"


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
        f"- Duplicate candidates: {_duplicate_count(report)}",
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
