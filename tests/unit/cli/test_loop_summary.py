"""What ``ralph loop`` says a pass left: each issue in one list, and "no work" said
only when there is none for an agent, in words that fit what is left."""

from __future__ import annotations

from ralph.cli._orchestrate import _left_lines
from ralph.cli._starting import at_once
from ralph.pipeline import BoardQueue, QueuedRoot, QueueTier, Stage


def _root(number: int, phase: str = "triage") -> QueuedRoot:
    return QueuedRoot(number, (number,), Stage.TRIAGE, phase, QueueTier.UNSTARTED)


def test_an_empty_board_has_no_work_in_any_queue():
    assert _left_lines(BoardQueue(()), None) == ["No work found in any queue."]


def test_a_board_that_only_waits_for_a_person_says_so_in_one_line():
    left = BoardQueue((), waiting=(10, 15))
    assert _left_lines(left, None) == ["No work an agent can do; waiting for a person: #10, #15."]
    assert _left_lines(left, {"triage", "research"}) == [
        "No work an agent can do; waiting for a person: #10, #15."
    ]


def test_work_left_and_who_waits_are_separate_lists():
    left = BoardQueue((_root(5),), waiting=(1,))
    assert _left_lines(left, None) == [
        "Work left after this pass: #5.",
        "Waiting for a person: #1.",
    ]


def test_only_names_the_phases_it_ran_and_what_it_skipped():
    left = BoardQueue((), skipped=(_root(3, "plan"),))
    assert _left_lines(left, {"triage", "research"}) == [
        "No work found for research, triage.",
        "Skipped, outside --only: #3 (plan).",
    ]


def test_what_runs_at_once_is_counted_in_words():
    assert at_once(1, 3) == "1 root and 3 agents at once"
    assert at_once(2, 1) == "2 roots and 1 agent at once"
