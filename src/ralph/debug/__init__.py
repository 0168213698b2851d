"""The debug log read back (the original's ``debug_stats`` and ``collate_debug``): the
events ``ralph._debuglog`` appends under ``.ralph/logs/`` when ``RALPH_DEBUG`` is on,
their statistics, and recurring errors grouped by a normalised signature and filed as
``debug-auto`` issues on the project's tracker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.debug._collate import (
        DEBUG_LABEL,
        CollateResult,
        FiledGroup,
        collate,
        issue_body,
        occurrence_report,
    )
    from ralph.debug._read import LogRead, iso_time, read_events
    from ralph.debug._signature import (
        ErrorGroup,
        event_name,
        group_errors,
        hash_signature,
        is_error,
        normalise,
        signature,
    )
    from ralph.debug._since import MAX_SINCE_DAYS, parse_since
    from ralph.debug._stats import GroupBy, GroupStats, Stats, debug_stats
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "DEBUG_LABEL",
    "MAX_SINCE_DAYS",
    "CollateResult",
    "ErrorGroup",
    "FiledGroup",
    "GroupBy",
    "GroupStats",
    "LogRead",
    "Stats",
    "collate",
    "debug_stats",
    "event_name",
    "group_errors",
    "hash_signature",
    "is_error",
    "iso_time",
    "issue_body",
    "normalise",
    "occurrence_report",
    "parse_since",
    "read_events",
    "signature",
]
