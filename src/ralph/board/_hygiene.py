"""The hygiene report of a tracker's board, and archiving what it finds done long ago."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.dashboard import HygieneConfig, HygieneItem, HygieneReport, build_hygiene_report
from ralph.errors import RalphError
from ralph.tracker import Tracker, dashboard_items

__all__ = ["ArchiveResult", "archive_candidates", "hygiene_report"]


def hygiene_report(
    tracker: Tracker, config: HygieneConfig | None = None, *, now: float | None = None
) -> HygieneReport:
    """The original's Project Hygiene Report of the board (archived issues left out)."""
    when = tracker.now() if now is None else now
    return build_hygiene_report(dashboard_items(tracker), now=when, config=config)


@dataclass(frozen=True)
class ArchiveResult:
    dry_run: bool
    #: What was archived (with ``dry_run``: what would be).
    items: tuple[HygieneItem, ...]
    #: (number, why) for each item the tracker refused or could not reach.
    errors: tuple[tuple[int, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The original's ``bulk_archive`` answer."""
        counted = {"wouldArchive" if self.dry_run else "archivedCount": len(self.items)}
        return {
            "dryRun": self.dry_run,
            **counted,
            "items": [i.to_dict() for i in self.items],
            "errors": [{"number": n, "error": e} for n, e in self.errors],
        }


def archive_candidates(
    tracker: Tracker, report: HygieneReport, *, dry_run: bool = False
) -> ArchiveResult:
    """Archive the report's archive candidates (Done or Canceled for longer than its
    threshold), one at a time; one that fails is reported and the rest go on."""
    if dry_run:
        return ArchiveResult(True, report.archive_candidates)
    archived, errors = [], []
    for item in report.archive_candidates:
        try:
            tracker.archive_issue(item.number)
        except RalphError as exc:
            errors.append((item.number, str(exc)))
        else:
            archived.append(item)
    return ArchiveResult(False, tuple(archived), tuple(errors))
