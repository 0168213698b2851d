"""Which of an issue's comments an agent reads. Ralph's own state-change audit comments
are left out (they were a fifth of an implement brief and tell the agent nothing it can
act on), and so are the hints Ralph leaves for people in its comments ("Run `ralph run
plan 1` to address these issues."): an agent cannot run Ralph's commands and must not
try. Both are recognised by the exact formats their producers write."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["for_agents", "is_audit_comment", "without_hints"]

#: ``workflow.audit_comment``, posted by the tracker on every state change.
_AUDIT = re.compile(
    r"\*\*State transition\*\*: [^\n]+ → [^\n]+ \(intent: [^\n]+\)\n"
    r"\*\*Command\*\*: [^\n]+\n"
    r"\*\*By\*\*: [^\n]+\n\n"
    r"<!-- ralph-transition: \{[^\n]*\} -->"
)
#: Sentences meant for the person reading the issue, by the phase that writes them.
_HINTS = (
    # review, approved: "Ready for implementation. Run `ralph run implement 3` to begin."
    re.compile(r" ?Run `ralph run implement \d+` to begin\."),
    # review, needs iteration
    re.compile(r"\n*Run `ralph run plan \d+` to address these issues\."),
    # the runner's escalation: whom it notifies, then what to do
    re.compile(r"\A(?:@[\w./-]+ )+(?=Escalation: )"),
    re.compile(
        r"\n*Phase `\w+` stopped and needs a person\. Resolve the problem, then (?:move the "
        r"issue back \(`ralph issue move \d+ STATE`\) and run the phase again|run "
        r"`ralph issue retry \d+` and `ralph hero \d+` \(or let `ralph serve` pick it up\))\."
    ),
    # split's signature
    re.compile(r"\n*\*Split by `ralph run split`\*"),
)


def _normalised(body: str) -> str:
    return body.replace("\r\n", "\n").strip()


def is_audit_comment(body: str) -> bool:
    return _AUDIT.fullmatch(_normalised(body)) is not None


def without_hints(body: str) -> str:
    text = _normalised(body)
    for hint in _HINTS:
        text = hint.sub("", text)
    return text.strip()


def for_agents(bodies: Iterable[str]) -> tuple[str, ...]:
    """The comments an agent is shown: no audit comments, no hints for people, and no
    comment that is empty without them."""
    kept = (without_hints(body) for body in bodies if not is_audit_comment(body))
    return tuple(body for body in kept if body)
