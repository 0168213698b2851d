"""The dashboard as plain text bars, in the original's ``formatAscii`` layout."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from ralph.dashboard._build import Dashboard, Severity

__all__ = ["format_ascii"]

_BAR_WIDTH = 30


def _bar(count: int, most: int) -> str:
    if count == 0 or most == 0:
        return "░"
    return "█" * math.floor(count / most * _BAR_WIDTH + 0.5)


def format_ascii(dashboard: Dashboard) -> str:
    generated = datetime.fromtimestamp(dashboard.generated_at, UTC).isoformat()
    most = max((phase.count for phase in dashboard.phases), default=0)
    lines = [f"Pipeline Status ({generated})", ""]
    lines += [
        f"{phase.state:>20} {_bar(phase.count, most)} {phase.count}" for phase in dashboard.phases
    ]
    lines.append("")
    if dashboard.ok:
        lines.append("Health: OK")
    else:
        counts = dict.fromkeys(Severity, 0)
        for warning in dashboard.warnings:
            counts[warning.severity] += 1
        lines.append("Health: " + ", ".join(f"{n} {s.value}" for s, n in counts.items()))
    lines += [f"  {w.severity.value.upper()}: {w.message}" for w in dashboard.warnings]
    lines += [
        "",
        f"Archive: {len(dashboard.archive_eligible)} eligible (threshold: "
        f"{dashboard.archive_threshold_days:g}d), {dashboard.recently_completed} recent",
    ]
    return "\n".join(lines) + "\n"
