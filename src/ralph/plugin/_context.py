"""A hook context: which phase a skill is running on which issue, in which session, and
until when. Hooks do nothing without one, so ordinary sessions are untouched, and one
that a crashed skill left behind stops counting when it expires."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HookContext"]


@dataclass(frozen=True, kw_only=True)
class HookContext:
    #: The phase the skill runs (``ralph.workflow.PHASE_SPECS`` names: ``implement``).
    phase: str
    #: The issue it runs on, if it names one.
    issue: int | None = None
    #: That issue's parent, whose worktree its children share (``ralph.phases``).
    epic: int | None = None
    #: Seconds since the epoch after which the context no longer counts.
    expires_at: float
    #: The Claude Code session that set it; empty when it was set outside one, and then
    #: it counts for every session in the project.
    session_id: str = ""

    def applies(self, session_id: str, now: float) -> bool:
        if now >= self.expires_at:
            return False
        return not self.session_id or not session_id or self.session_id == session_id

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "issue": self.issue,
            "epic": self.epic,
            "expires_at": self.expires_at,
            "session_id": self.session_id,
        }

    @classmethod
    def from_json(cls, data: object) -> HookContext:
        """Raises ValueError when ``data`` is not a context (a file edited by hand)."""
        if not isinstance(data, Mapping):
            raise ValueError("a hook context is a JSON object")
        phase, issue, epic = data.get("phase"), data.get("issue"), data.get("epic")
        expires, session = data.get("expires_at"), data.get("session_id", "")
        if not isinstance(phase, str) or not phase:
            raise ValueError("a hook context needs a phase")
        if issue is not None and (isinstance(issue, bool) or not isinstance(issue, int)):
            raise ValueError("a hook context's issue is a number")
        if epic is not None and (isinstance(epic, bool) or not isinstance(epic, int)):
            raise ValueError("a hook context's epic is a number")
        if isinstance(expires, bool) or not isinstance(expires, int | float):
            raise ValueError("a hook context needs expires_at (seconds since the epoch)")
        if not isinstance(session, str):
            raise ValueError("a hook context's session_id is a string")
        return cls(
            phase=phase, issue=issue, epic=epic, expires_at=float(expires), session_id=session
        )
