"""Did you mean: the closest known name to a mistyped one, and none for a far one."""

from __future__ import annotations

import pytest

from ralph._suggest import closest, unknown_name

PHASES = ["triage", "split", "research", "plan", "review", "implement", "pr", "merge"]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("reserch", "research"), ("implment", "implement"), ("plna", "plan"), ("merg", "merge")],
)
def test_a_typo_finds_the_name_it_was_meant_to_be(typed: str, meant: str):
    assert closest(typed, PHASES) == meant


@pytest.mark.parametrize("typed", ["deploy", "x", ""])
def test_a_name_like_none_finds_none(typed: str):
    assert closest(typed, PHASES) is None


def test_the_message_suggests_the_close_name_or_else_lists_them_all():
    assert unknown_name("phase", "reserch", PHASES, "phases are") == (
        "unknown phase 'reserch'; did you mean 'research'?"
    )
    assert unknown_name("phase", "deploy", PHASES[:2], "phases are") == (
        "unknown phase 'deploy'; phases are: triage, split"
    )
