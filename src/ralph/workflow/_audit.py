"""Transition audit comments (the original's format): a readable line for people and the
original's machine-readable marker, ``<!-- ralph-transition: {...} -->``, so cycle times
can be computed from an issue's comments by either system."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = [
    "TransitionRecord",
    "audit_comment",
    "parse_all_transitions",
    "parse_audit_comments",
    "parse_transition_comments",
    "transition_marker",
]

#: Patterns ``re`` compiles (and caches) when a history is first read, not at import.
_MARKER = r"<!-- ralph-transition: (\{.*?\}) -->"
_AUDIT = r"\*\*State transition\*\*: (.+?) → (.+?) \(intent: .+?\)\n\*\*Command\*\*: ralph_(\w+)"


@dataclass(frozen=True)
class TransitionRecord:
    from_state: str
    to_state: str
    command: str
    at: str  # ISO-8601

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.from_state, self.to_state, self.command)


def transition_marker(record: TransitionRecord) -> str:
    """One line, compact JSON with the keys in the original's order."""
    payload = json.dumps(
        {
            "from": record.from_state,
            "to": record.to_state,
            "command": record.command,
            "at": record.at,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return f"<!-- ralph-transition: {payload} -->"


def audit_comment(record: TransitionRecord, *, intent: str | None, actor: str) -> str:
    """The comment a state change leaves on its issue."""
    return (
        f"**State transition**: {record.from_state} → {record.to_state} "
        f"(intent: {intent or 'direct'})\n"
        f"**Command**: {record.command}\n"
        f"**By**: {actor}\n\n"
        f"{transition_marker(record)}"
    )


def parse_transition_comments(text: str) -> list[TransitionRecord]:
    """Every well-formed marker in ``text``; malformed or incomplete ones are skipped."""
    records = []
    for match in re.finditer(_MARKER, text):
        try:
            data = json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        fields = [data.get(key) for key in ("from", "to", "command", "at")]
        if all(isinstance(f, str) and f for f in fields):
            records.append(TransitionRecord(*(str(f) for f in fields)))
    return records


def parse_audit_comments(text: str, created_at: str) -> list[TransitionRecord]:
    """The original's human-readable audit lines, dated by their comment."""
    return [
        TransitionRecord(m.group(1), m.group(2), f"ralph_{m.group(3)}", created_at)
        for m in re.finditer(_AUDIT, text)
    ]


def parse_all_transitions(body: str, created_at: str) -> list[TransitionRecord]:
    """Markers first; readable lines add only transitions no marker already records."""
    markers = parse_transition_comments(body)
    audits = parse_audit_comments(body, created_at)
    seen = {r.key for r in markers}
    return markers + [r for r in audits if r.key not in seen]
