"""The XS fast track (the original's §6.8 3.1): an XS issue whose change is concrete
skips research, plan and review; Ralph writes its plan and it goes to implementation.

The triage agent only proposes it. These guards decide, in this order, and every
refusal says why in words: the project allows it (``fast_track``), the agent proposed
it, the issue is XS, its fast track never failed before (a fast track whose
implementation failed goes through the full pipeline once, then escalates), it is no
member of an epic with three or more children, it is planned alone (no group to plan
with), it names one to three files, and none of them lies under the project's shared
infrastructure (``shared_paths``). Pure: no I/O.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ralph.workflow._states import Estimate

__all__ = [
    "FAST_TRACK_LABEL",
    "FAST_TRACK_SPENT_LABEL",
    "MAX_FAST_TRACK_FILES",
    "FastTrack",
    "decide_fast_track",
    "shared_path_of",
]

#: On an issue that was fast-tracked: its implementation may fall back to the full
#: pipeline once.
FAST_TRACK_LABEL = "ralph-fast-track"
#: On an issue whose fast track failed: never fast-tracked again, and a second failed
#: implementation escalates.
FAST_TRACK_SPENT_LABEL = "ralph-fast-track-failed"
MAX_FAST_TRACK_FILES = 3
#: An epic with this many children or more plans its children together (the original).
_EPIC_CHILDREN = 3


@dataclass(frozen=True)
class FastTrack:
    """Whether an issue is fast-tracked, and why (or why not)."""

    granted: bool
    reason: str


def shared_path_of(path: str, shared: Sequence[str]) -> str | None:
    """The entry of ``shared`` (a folder, a file or a glob) that ``path`` lies under."""
    for entry in shared:
        folder = entry.rstrip("/")
        if path == folder or path.startswith(f"{folder}/") or fnmatch.fnmatchcase(path, entry):
            return entry
    return None


def _concrete(path: str) -> bool:
    return bool(path) and not path.startswith("/") and ".." not in path.split("/")


def decide_fast_track(
    *,
    enabled: bool,
    proposed: bool,
    estimate: Estimate | str | None,
    files: Sequence[str],
    labels: Collection[str] = (),
    epic_children: int = 0,
    group: Sequence[int] = (),
    shared_paths: Sequence[str] = (),
) -> FastTrack:
    """Decide the fast track of one issue. ``epic_children``: how many children the
    issue's parent has (0 without a parent); ``group``: the other open issues it would
    be planned with (an epic's children, issues bound by dependencies)."""
    if not enabled:
        return FastTrack(False, "the project turned the fast track off (fast_track = false)")
    if not proposed:
        return FastTrack(False, "the triage agent did not propose it")
    if estimate != Estimate.XS:
        return FastTrack(
            False, f"only an XS issue is fast-tracked; this one is {estimate or 'not estimated'}"
        )
    if FAST_TRACK_SPENT_LABEL in labels:
        return FastTrack(
            False, "it was fast-tracked before, and its implementation failed: the full pipeline"
        )
    if epic_children >= _EPIC_CHILDREN:
        return FastTrack(
            False,
            f"its epic has {epic_children} children, which are researched and planned together",
        )
    if group:
        listed = ", ".join(f"#{n}" for n in group)
        return FastTrack(False, f"it is planned together with {listed}")
    named = list(dict.fromkeys(f.strip().removeprefix("./") for f in files))
    if not named:
        return FastTrack(False, "no file is named: the change is not concrete enough")
    if len(named) > MAX_FAST_TRACK_FILES:
        return FastTrack(
            False, f"{len(named)} files are named; the fast track takes 1 to {MAX_FAST_TRACK_FILES}"
        )
    vague = [f for f in named if not _concrete(f)]
    if vague:
        return FastTrack(False, f"{vague[0]!r} is not a path inside the repository")
    for path in named:
        shared = shared_path_of(path, shared_paths)
        if shared is not None:
            return FastTrack(False, f"{path} is shared infrastructure (shared_paths: {shared!r})")
    return FastTrack(True, f"XS, and the change is concrete: {', '.join(named)}")
