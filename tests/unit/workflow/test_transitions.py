from __future__ import annotations

import itertools

import pytest

from ralph.errors import InvalidTransition, UnknownState
from ralph.workflow import (
    ALLOWED_TRANSITIONS,
    WorkflowState,
    allowed_targets,
    check_transition,
    is_allowed,
)

S = WorkflowState

# The original's matrix (docs/compatibility.md), written out independently of the module under test.
MATRIX = {
    # + Human Needed: triage and split escalate from Backlog (the original never checked).
    "Backlog": {"Research Needed", "Ready for Plan", "Done", "Canceled", "Human Needed"},
    "Research Needed": {"Research in Progress", "Ready for Plan", "Human Needed"},
    "Research in Progress": {"Ready for Plan", "Human Needed"},
    "Ready for Plan": {"Plan in Progress", "Human Needed"},
    "Plan in Progress": {"Plan in Review", "Human Needed"},
    "Plan in Review": {"In Progress", "Ready for Plan", "Human Needed"},
    # + Research Needed: a failed fast track goes through the full pipeline once.
    "In Progress": {"In Review", "Human Needed", "Research Needed"},
    "In Review": {"Done", "In Progress", "Human Needed"},
    "Human Needed": {"Backlog", "Research Needed", "Ready for Plan", "In Progress"},
    "Done": set(),
    "Canceled": set(),
}

ALL_PAIRS = list(itertools.product(MATRIX, MATRIX))


def test_the_matrix_covers_all_121_pairs():
    assert len(ALL_PAIRS) == 121
    assert set(ALLOWED_TRANSITIONS) == set(S)


@pytest.mark.parametrize(("from_state", "to_state"), ALL_PAIRS)
def test_check_transition_follows_the_matrix_for_every_pair(from_state, to_state):
    if to_state in MATRIX[from_state]:
        assert check_transition(from_state, to_state) == to_state
        assert is_allowed(from_state, to_state)
    else:
        with pytest.raises(InvalidTransition) as info:
            check_transition(from_state, to_state)
        assert not is_allowed(from_state, to_state)
        assert info.value.from_state == from_state
        assert info.value.to_state == to_state
        assert set(info.value.allowed) == MATRIX[from_state]


def test_refusal_names_the_allowed_targets():
    with pytest.raises(InvalidTransition, match="Allowed from 'Backlog': Research Needed, Ready"):
        check_transition("Backlog", "In Review")


def test_refusal_from_a_terminal_state_says_it_is_terminal():
    with pytest.raises(InvalidTransition, match="none \\(terminal state\\)"):
        check_transition("Done", "Backlog")


def test_staying_in_the_same_state_is_not_a_transition():
    with pytest.raises(InvalidTransition):
        check_transition("In Progress", "In Progress")


def test_unknown_state_names_are_refused_with_the_valid_names():
    with pytest.raises(UnknownState, match="Valid states: Backlog, Research Needed"):
        check_transition("backlog", "Research Needed")
    with pytest.raises(UnknownState):
        allowed_targets("Blocked")


def test_allowed_targets_keep_the_original_order():
    assert allowed_targets("Plan in Review") == (S.IN_PROGRESS, S.READY_FOR_PLAN, S.HUMAN_NEEDED)


def test_only_triages_fast_track_moves_backlog_to_in_progress():
    assert check_transition("Backlog", "In Progress", "ralph_triage") == S.IN_PROGRESS
    for command in (None, "ralph_human", "ralph_research", "ralph_impl", "ralph_hero"):
        assert not is_allowed("Backlog", "In Progress", command)
        with pytest.raises(InvalidTransition, match="Allowed from 'Backlog': Research Needed,"):
            check_transition("Backlog", "In Progress", command)
    assert "In Progress" not in str(allowed_targets("Backlog", "ralph_human"))
