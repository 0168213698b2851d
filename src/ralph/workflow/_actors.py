"""Who moved an issue, in words: a state change records its command (``ralph_impl``),
which the original's tooling parses and so stays in the comment; people are shown what
did it ("implementation", "a person"). Pure."""

from __future__ import annotations

from ralph.workflow._commands import normalize_command

__all__ = ["command_words"]

_WORDS = {
    "ralph_triage": "triage",
    "ralph_split": "split",
    "ralph_research": "research",
    "ralph_plan": "planning",
    "ralph_create_plan": "planning",
    "ralph_iterate_plan": "planning",
    "ralph_review": "plan review",
    "ralph_impl": "implementation",
    "ralph_implement_plan": "implementation",
    "ralph_hero": "hero",
    "ralph_pr": "pull request",
    "ralph_code_review": "code review",
    "ralph_address": "review fixes",
    "ralph_merge": "merge",
    "ralph_human": "a person",
    "human": "a person",
    "ralph_advance_parent": "its sub-issues",
    "ralph_sync": "the tracker",
}


def command_words(command: str) -> str:
    """What ``command`` did, for people; an unknown command is shown as recorded."""
    return _WORDS.get(command) or _WORDS.get(normalize_command(command), command)
